// One worker's operations in the metadata phase, on the names of one folder
// held open (StoreFolder): create (O_CREAT|O_EXCL, write file_size bytes,
// optionally fsync, close), stat (a file of file_size bytes), open and close,
// read whole and verify, rename. The bytes of file i of rank r are made from
// (seed, r, i), so a rank that reads another rank's file (stride) checks it
// read what that rank wrote.
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
  // engine moves the files' bytes and fsyncs them (psync); null when file_size is 0 and fsync false.
  MdFileOps(const MetadataParams& p, std::unique_ptr<Engine> engine);

  Status create(StoreFolder& folder, const std::string& name, int owner, uint64_t i);
  Status stat(StoreFolder& folder, const std::string& name);
  Status open(StoreFolder& folder, const std::string& name);
  Status read(StoreFolder& folder, const std::string& name, int owner, uint64_t i);

 private:
  // The bytes of file i of owner, in expected_.
  void make_bytes(int owner, uint64_t i);
  // Moves all of buf to or from file at offset 0 through the engine, then fsyncs it when sync.
  Status whole_io(const StoreFile& file, IoOp op, void* buf, uint64_t len, bool sync);

  MetadataParams p_;
  std::unique_ptr<Engine> engine_;
  std::vector<unsigned char> expected_;
  std::vector<unsigned char> got_;
};

}  // namespace iofab
