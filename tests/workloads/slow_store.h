// A Store decorator for tests: every file created in a step-N.tmp/ folder,
// except the commit file, waits a fixed delay before the wrapped store
// creates it, and the time of the first such create is kept. Put on the
// shared side of a two-tier checkpoint it slows only the drain, so "does this
// span include the drain?" becomes a question of structure, not of speed.
// An optional hook runs at each delayed create (a test's Ctrl-C).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "harness/engines/io_driver.h"
#include "forwarding_store.h"
#include "workloads/checkpoint/folder_layout.h"

namespace iofab::testing {

struct SlowStoreLog {
  std::atomic<uint64_t> creates{0};
  std::atomic<uint64_t> first_create_ns{0};  // now_ns() when the first delayed create began; 0: none
};

class SlowStore final : public ForwardingStore {
 public:
  SlowStore(std::unique_ptr<Store> inner, std::chrono::nanoseconds delay, SlowStoreLog* log,
            std::function<void()> on_create = {})
      : ForwardingStore(std::move(inner)), delay_(delay), log_(log), on_create_(std::move(on_create)) {}

  Status create(std::string_view path, const OpenOptions& opts, StoreFile* out) override {
    const std::string p(path);
    const bool in_tmp_step = p.find(".tmp/") != std::string::npos;
    const bool commit_file = p.ends_with("/" + std::string(kCheckpointManifestName));
    if (in_tmp_step && !commit_file) {
      uint64_t none = 0;
      log_->first_create_ns.compare_exchange_strong(none, now_ns());
      log_->creates.fetch_add(1);
      if (on_create_) on_create_();
      std::this_thread::sleep_for(delay_);
    }
    return ForwardingStore::create(path, opts, out);
  }

 private:
  std::chrono::nanoseconds delay_;
  SlowStoreLog* log_;
  std::function<void()> on_create_;
};

}  // namespace iofab::testing
