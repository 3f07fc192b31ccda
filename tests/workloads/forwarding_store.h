// A Store that passes every call to another one: the base of the test stores that change one call
// (failing_store.h, slow_store.h) and leave the rest to a real store.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness/store/store.h"

namespace iofab::testing {

class ForwardingStore : public Store {
 public:
  explicit ForwardingStore(std::unique_ptr<Store> inner) : inner_(std::move(inner)) {}

  std::string_view name() const override { return inner_->name(); }
  StoreCaps caps() const override { return inner_->caps(); }
  const std::string& location() const override { return inner_->location(); }
  Status make_folder(std::string_view path) override { return inner_->make_folder(path); }
  Status create(std::string_view path, const OpenOptions& opts, StoreFile* out) override {
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
};

}  // namespace iofab::testing
