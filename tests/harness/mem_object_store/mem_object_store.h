// The memory object store: a test-only Store with an object store's semantics, as the S3 store has them
// (harness/store/s3_store.h), over a bucket in memory (mem_bucket.h) instead of a server. Folders are key
// prefixes that exist once something is below them; a file is an object, written in order by its own
// engine, "mem" (mem_object_engine.h, caps().engine), and existing only once Engine::fsync commits it
// (caps().commit_per_file): before that no listing, stat or open sees it. No rename (commit), no lock, no
// free-space figure, and caps() says so.
//
// It is the second object store the recipe in docs/architecture.md promises ("to add one"), built into the
// test binary only: its kind of target (mem_target.h) and its engine are added by the tests that use them,
// never by iofab, so a user's `--target mem://...` is a folder named "mem:" as it always was.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "harness/store/store.h"
#include "mem_bucket.h"

namespace iofab::mem {

// One file of the store as its engine sees it: a key in a bucket, to read, or to write and commit.
class MemFileObject final : public FileObject {
 public:
  MemFileObject(std::shared_ptr<MemBucket> bucket, std::string key, bool writable)
      : bucket_(std::move(bucket)), key_(std::move(key)), writable_(writable) {}
  MemBucket& bucket() const { return *bucket_; }
  const std::string& key() const { return key_; }
  bool writable() const { return writable_; }

 private:
  std::shared_ptr<MemBucket> bucket_;
  std::string key_;
  bool writable_;
};

// root: the key prefix every path goes below ("runs/iofab-<run id>"), non-empty.
Status open_mem_object_store(std::shared_ptr<MemBucket> bucket, const std::string& root,
                             std::unique_ptr<Store>* out);

}  // namespace iofab::mem
