// Runs phases in-process as the runner would, on one rank, in a scratch run
// folder: parse the params like a suite, build the PhaseContext, run.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/comm/comm.h"
#include "harness/fs/target.h"
#include "harness/phase/params.h"
#include "harness/store/posix_store.h"
#include "test_util.h"
#include "harness/phase/phase.h"
#include "workloads/phase_table.h"

namespace iofab::testing {

class PhaseHarness {
 public:
  // base: "/dev/shm" (tmpfs) or "/var/tmp" (the disk).
  explicit PhaseHarness(const std::string& base = "/dev/shm") : dir_(base) {
    fd_ = open(dir_.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    EXPECT_GE(fd_, 0);
    EXPECT_TRUE(describe_target(dir_.path(), &target_).ok());
  }
  ~PhaseHarness() {
    if (fd_ >= 0) close(fd_);
  }
  PhaseHarness(const PhaseHarness&) = delete;
  PhaseHarness& operator=(const PhaseHarness&) = delete;

  // Parses params for kind; on a validation error returns null and sets *errors.
  static std::unique_ptr<Phase> parse(const std::string& kind, const nlohmann::json& params,
                                      std::string* errors = nullptr) {
    const PhaseKind* k = find_phase_kind(kind);
    EXPECT_NE(k, nullptr) << kind;
    if (k == nullptr) return nullptr;
    ParamReader r(params, "phases[0]");
    auto phase = k->parse(r);
    Status s = r.finish({"kind", "name", "checks"});
    if (!s.ok()) {
      if (errors != nullptr) *errors = s.message();
      return nullptr;
    }
    return phase;
  }

  // Runs a phase named name of kind with params in this run folder.
  Status run(const std::string& kind, const std::string& name, const nlohmann::json& params,
             PhaseResult* result, bool keep = false) {
    std::string errors;
    auto phase = parse(kind, params, &errors);
    EXPECT_NE(phase, nullptr) << errors;
    if (phase == nullptr) return Status::Invalid(errors);
    Progress progress;
    PhaseContext ctx{comm_, dir_.path(), target_, stop, progress, name, keep, engines};
    std::unique_ptr<Store> store;
    if (Status s = posix_store_at(fd_, dir_.path(), &store); !s.ok()) return s;
    if (wrap_store) store = wrap_store(std::move(store));
    ctx.store = store.get();
    return phase->run(ctx, result);
  }

  const std::string& path() const { return dir_.path(); }
  int fd() const { return fd_; }
  std::atomic<bool> stop{false};
  const EngineMaker* engines = nullptr;  // null: the engine table
  // When set, the run's store is what it returns from the POSIX store (tests inject faults this way).
  std::function<std::unique_ptr<Store>(std::unique_ptr<Store>)> wrap_store;

 private:
  TempDir dir_;
  int fd_ = -1;
  SelfComm comm_;
  TargetInfo target_;
};

}  // namespace iofab::testing
