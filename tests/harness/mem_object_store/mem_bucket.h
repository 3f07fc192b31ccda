// The memory object store's buckets: what an object store's server holds, in this process. A key names a
// whole object; an object is stored at its commit, whole, and never changes after (a new put replaces it
// as S3's PUT does). What the store (mem_object_store.h) and its engine (mem_object_engine.h) share, and
// what a test reads after a run to see what the phases committed. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace iofab::mem {

struct MemObject {
  std::shared_ptr<const std::string> bytes;
  int64_t modified_unix_ns = 0;  // when it was put
};

class MemBucket {
 public:
  explicit MemBucket(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }

  void put(const std::string& key, std::string bytes);
  // The object at key; bytes null when there is none.
  MemObject get(const std::string& key) const;
  // Every object whose key starts with prefix, by key.
  std::map<std::string, MemObject> list(const std::string& prefix) const;
  void remove(const std::string& key);
  // Removes every key starting with prefix; how many went.
  uint64_t remove_prefix(const std::string& prefix);
  // How many objects were put since the bucket was made: one a commit.
  uint64_t puts() const;

 private:
  const std::string name_;
  mutable std::mutex mu_;
  std::map<std::string, MemObject> objects_;
  uint64_t puts_ = 0;
};

// The bucket named name, made on first use; every store and engine of the process shares it.
std::shared_ptr<MemBucket> mem_bucket(const std::string& name);
// Forgets every bucket: a test starts from none.
void forget_mem_buckets();

}  // namespace iofab::mem
