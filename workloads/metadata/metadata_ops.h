// One worker's operations in the metadata phase, on the names of one folder
// held open (StoreFolder): create (O_CREAT|O_EXCL, write file_size bytes,
// optionally fsync, close), stat (a file of file_size bytes), open and close,
// read whole and verify, rename. The bytes of file i of rank r are made from
// (seed, r, i), so a rank that reads another rank's file (stride) checks it
// read what that rank wrote. On an object store (objects non-null) each is one request through the Store:
// create a PUT of the whole file, stat a HEAD, read a GET.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "harness/core/status.h"
#include "harness/engines/engine.h"
#include "harness/store/store_folder.h"
#include "workloads/metadata/metadata_plan.h"

namespace iofab {

class MdFileOps {
 public:
  // engine moves the files' bytes and fsyncs them (psync); null when file_size is 0 and fsync false, or
  // with objects: the object store every call goes to by path, a request each.
  MdFileOps(const MetadataParams& p, std::unique_ptr<Engine> engine, Store* objects = nullptr);

  Status create(StoreFolder& folder, const std::string& name, int owner, uint64_t i);
  Status stat(StoreFolder& folder, const std::string& name);
  Status open(StoreFolder& folder, const std::string& name);
  Status read(StoreFolder& folder, const std::string& name, int owner, uint64_t i);

 private:
  // The bytes of file i of owner, in expected_.
  void make_bytes(int owner, uint64_t i);
  // The object store's calls: a PUT, a HEAD, a GET of folder's name.
  Status put_object(const StoreFolder& folder, const std::string& name, int owner, uint64_t i);
  Status get_object(const StoreFolder& folder, const std::string& name, int owner, uint64_t i);
  // A stat's answer: a file of file_size bytes, or an error naming path.
  Status check_stat(const std::string& path, const EntryInfo& info) const;
  // The bytes read back (got_, len of them) are those owner wrote into its file i.
  Status check_bytes(const std::string& path, const unsigned char* got, uint64_t len, int owner, uint64_t i);
  // Moves all of buf to or from file at offset 0 through the engine, then fsyncs it when sync.
  Status whole_io(const StoreFile& file, IoOp op, void* buf, uint64_t len, bool sync);

  MetadataParams p_;
  std::unique_ptr<Engine> engine_;
  Store* objects_;
  std::vector<unsigned char> expected_;
  std::vector<unsigned char> got_;
};

}  // namespace iofab
