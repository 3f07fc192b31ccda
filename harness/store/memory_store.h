// The memory store: a fake for tests. Its namespace is a map; its files are
// memfd_create(2) files, so real engines (psync, io_uring) move their bytes.
// A capacity makes free_space() testable; a fault (an errno) can be armed
// for the next operation on a path.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "harness/store/store.h"

namespace iofab {

class MemoryStore : public Store {
 public:
  // capacity: what free_space() reports less the bytes the files hold.
  explicit MemoryStore(uint64_t capacity = UINT64_MAX);
  ~MemoryStore() override;

  std::string_view name() const override { return "memory"; }
  StoreCaps caps() const override;
  const std::string& location() const override { return location_; }

  Status make_folder(std::string_view path) override;
  Status create(std::string_view path, const OpenOptions& opts, StoreFile* out) override;
  Status open(std::string_view path, const OpenOptions& opts, StoreFile* out) override;
  Status commit(std::string_view from, std::string_view to) override;
  Status sync(const StoreFile& file) override;
  Status sync_folder(std::string_view path) override;
  Status list(std::string_view path, std::vector<std::string>* names) override;
  Status stat(std::string_view path, EntryInfo* info) override;
  Status remove(std::string_view path) override;
  Status remove_tree(std::string_view path) override;
  Status free_space(uint64_t* bytes) override;

  Status lock(std::string_view path, std::unique_ptr<StoreLock>* out) override;
  Status sync_all() override;

  // The next operation of any kind on path fails with this errno (once).
  void fail_next(std::string_view path, int err);
  // How many sync() and sync_folder() calls the store has seen: what a commit protocol must do.
  uint64_t syncs() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::string location_ = "memory:";
};

}  // namespace iofab
