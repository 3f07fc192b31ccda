// A fake object store as a kind of target, for tests: "mem://NAME", the run's objects in a MemoryStore
// (memfd files, so the real engines move the bytes) with a capacity the preflight checks. It is what a
// second object store costs: this folder and one row (target_kinds_test.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "harness/store/memory_store.h"
#include "driver/targets/run_target.h"

namespace iofab::fake {

// What the last fake target saw, for the test to read after the run.
struct FakeObjectStoreLog {
  uint64_t capacity = 1ULL << 30;
  std::vector<std::string> listed_during_run;  // the run's place, listed when it was opened
  bool removed = false;                        // remove_run(writer) ran and removed what was left
  std::vector<std::string> left_after;         // what the store held after removal
};

inline FakeObjectStoreLog& fake_log() {
  static FakeObjectStoreLog log;
  return log;
}

class FakeObjectTarget final : public RunTarget {
 public:
  explicit FakeObjectTarget(std::string path) : path_(std::move(path)) {}

  Status check() override {
    info_ = TargetInfo{};
    info_.path = path_;
    info_.fs_type = "fake-object";
    info_.access = "object";
    info_.mount_point = path_;
    return Status::Ok();
  }
  std::optional<uint64_t> free_bytes() const override { return fake_log().capacity; }
  Status open_run(Comm& /*comm*/, const std::string& run_id, bool /*keep*/) override {
    store_ = std::make_unique<MemoryStore>(fake_log().capacity);
    location_ = path_ + "/iofab-" + run_id;
    return store_->list("", &fake_log().listed_during_run);
  }
  Store& store() override { return *store_; }
  std::string location() const override { return location_; }
  Status check_direct_io(const std::vector<std::string>& /*phases*/, int /*rank*/) override {
    return Status::Ok();
  }
  Status remove_run(bool writer) override {
    if (!writer) return Status::Ok();
    std::vector<std::string> names;
    Status s = store_->list("", &names);
    for (size_t i = 0; s.ok() && i < names.size(); ++i) s = store_->remove_tree(names[i]);
    fake_log().removed = s.ok();
    if (s.ok()) s = store_->list("", &fake_log().left_after);
    return s;
  }
  std::optional<uint64_t> free_bytes_after(Status* why) const override {
    *why = Status::Ok();
    return std::nullopt;
  }
  std::string clean_command(const std::string& /*suite*/) const override { return "true"; }

 private:
  std::string path_;
  std::string location_;
  std::unique_ptr<MemoryStore> store_;
};

inline bool claims_mem(std::string_view target) { return target.starts_with("mem://"); }

inline std::unique_ptr<RunTarget> make_fake_object_target(const std::string& target, const Suite& /*suite*/) {
  return std::make_unique<FakeObjectTarget>(target);
}

// Any suite runs on it: its memory store takes every phase a folder takes.
inline Status check_suite_on_fake(const Suite& /*suite*/, std::string_view /*target*/, int /*ranks*/) {
  return Status::Ok();
}

inline int clean_fake(const CleanArgs& /*args*/, bool /*interactive*/, std::istream& /*in*/,
                      std::ostream& out, std::ostream& /*err*/) {
  out << "a memory store keeps nothing between runs\n";
  return 0;
}

}  // namespace iofab::fake
