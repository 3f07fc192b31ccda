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
#include "harness/store/store.h"
#include "workloads/checkpoint/folder_layout.h"

namespace iofab::testing {

struct SlowStoreLog {
  std::atomic<uint64_t> creates{0};
  std::atomic<uint64_t> first_create_ns{0};  // now_ns() when the first delayed create began; 0: none
};

class SlowStore final : public Store {
 public:
  SlowStore(std::unique_ptr<Store> inner, std::chrono::nanoseconds delay, SlowStoreLog* log,
            std::function<void()> on_create = {})
      : inner_(std::move(inner)), delay_(delay), log_(log), on_create_(std::move(on_create)) {}

  std::string_view name() const override { return inner_->name(); }
  StoreCaps caps() const override { return inner_->caps(); }
  const std::string& location() const override { return inner_->location(); }
  Status make_folder(std::string_view path) override { return inner_->make_folder(path); }
  Status create(std::string_view path, const OpenOptions& opts, StoreFile* out) override {
    const std::string p(path);
    const bool in_tmp_step = p.find(".tmp/") != std::string::npos;
    const bool commit_file = p.ends_with("/" + std::string(kManifestName));
    if (in_tmp_step && !commit_file) {
      uint64_t none = 0;
      log_->first_create_ns.compare_exchange_strong(none, now_ns());
      log_->creates.fetch_add(1);
      if (on_create_) on_create_();
      std::this_thread::sleep_for(delay_);
    }
    return inner_->create(path, opts, out);
  }
  Status open(std::string_view path, const OpenOptions& opts, StoreFile* out) override {
    return inner_->open(path, opts, out);
  }
  Status commit(std::string_view from, std::string_view to) override { return inner_->commit(from, to); }
  Status sync(const StoreFile& file) override { return inner_->sync(file); }
  Status sync_folder(std::string_view path) override { return inner_->sync_folder(path); }
  Status list(std::string_view path, std::vector<std::string>* names) override {
    return inner_->list(path, names);
  }
  Status stat(std::string_view path, EntryInfo* info) override { return inner_->stat(path, info); }
  Status remove(std::string_view path) override { return inner_->remove(path); }
  Status remove_tree(std::string_view path) override { return inner_->remove_tree(path); }
  Status free_space(uint64_t* bytes) override { return inner_->free_space(bytes); }
  Status lock(std::string_view path, std::unique_ptr<StoreLock>* out) override {
    return inner_->lock(path, out);
  }
  Status sync_all() override { return inner_->sync_all(); }

 private:
  std::unique_ptr<Store> inner_;
  std::chrono::nanoseconds delay_;
  SlowStoreLog* log_;
  std::function<void()> on_create_;
};

}  // namespace iofab::testing
