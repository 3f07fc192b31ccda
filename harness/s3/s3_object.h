// What an S3 store shares with the engines that move its bytes: where and how
// to send requests (S3Target, one per store), and one file as a key
// (S3FileObject, the StoreFile's object). The store makes both; the s3 engine
// reads them, and leaves its request figures in the target when it goes, for
// the phase's metrics (Store::take_request_stats).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "harness/s3/s3_client.h"
#include "harness/engines/store_file.h"

namespace iofab {

struct S3Target {
  S3Config config;
  S3Credentials creds;
  uint64_t part_size = 8ULL << 20;  // multipart upload above this; each part this big but the last
  unsigned parallel_parts = 4;      // parts of one object in flight at once

  // Request figures of every engine gone so far, taken by the phase that ran them.
  void add_stats(const RequestStats& s) {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.merge(s);
  }
  // An abort that failed: the upload's parts stay in the bucket; the phase warns (put_request_metrics).
  void note_failed_abort(const std::string& key, const Status& why) {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.note_failed_abort(key + ": " + why.message());
  }
  RequestStats take_stats() {
    std::lock_guard<std::mutex> lock(mu_);
    RequestStats out = std::move(stats_);
    stats_ = RequestStats();
    return out;
  }

 private:
  std::mutex mu_;
  RequestStats stats_;
};

class S3FileObject final : public FileObject {
 public:
  S3FileObject(std::shared_ptr<S3Target> target, std::string key, uint64_t size, bool writable)
      : target_(std::move(target)), key_(std::move(key)), size_(size), writable_(writable) {}
  const std::shared_ptr<S3Target>& target() const { return target_; }
  const std::string& key() const { return key_; }
  uint64_t size() const { return size_; }   // at open; 0 for a new one
  bool writable() const { return writable_; }

 private:
  std::shared_ptr<S3Target> target_;
  std::string key_;
  uint64_t size_;
  bool writable_;
};

}  // namespace iofab
