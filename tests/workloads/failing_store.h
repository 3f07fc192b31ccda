// A Store that passes every call to another one, except creating a path that ends with a given
// name: that fails, as if the process died there (the files made before it stay as they were).
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "harness/store/store.h"

namespace iofab::testing {

class FailingStore final : public Store {
 public:
  FailingStore(std::unique_ptr<Store> inner, std::string fail_suffix)
      : inner_(std::move(inner)), suffix_(std::move(fail_suffix)) {}

  std::string_view name() const override { return inner_->name(); }
  StoreCaps caps() const override { return inner_->caps(); }
  const std::string& location() const override { return inner_->location(); }
  Status make_folder(std::string_view path) override { return inner_->make_folder(path); }
  Status create(std::string_view path, const OpenOptions& opts, StoreFile* out) override {
    if (path.ends_with(suffix_)) {
      ++failed_;
      return Status::IoError("create " + std::string(path) + ": the process died here (FailingStore)");
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
  Status lock(std::string_view path, std::unique_ptr<StoreLock>* out) override { return inner_->lock(path, out); }
  Status sync_all() override { return inner_->sync_all(); }

  int failed() const { return failed_; }

 private:
  std::unique_ptr<Store> inner_;
  std::string suffix_;
  int failed_ = 0;
};

}  // namespace iofab::testing
