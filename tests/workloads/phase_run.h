// Runs one phase object on one rank in a scratch run folder, as the runner would set it up: for
// tests that build a phase from params structs (and injected engines) rather than from a suite.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "harness/comm/comm.h"
#include "harness/fs/target.h"
#include "harness/phase/phase.h"
#include "harness/store/posix_store.h"
#include "test_util.h"

namespace iofab::testing {

class PhaseRun {
 public:
  // base: "/dev/shm" (tmpfs) or "/var/tmp" (the disk).
  explicit PhaseRun(const std::string& base = "/dev/shm") : dir_(base) {
    fd_ = open(dir_.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    EXPECT_TRUE(describe_target(dir_.path(), &target_).ok());
  }
  ~PhaseRun() { close(fd_); }
  PhaseRun(const PhaseRun&) = delete;
  PhaseRun& operator=(const PhaseRun&) = delete;

  // Runs phase as "train"; seconds gets its wall time.
  Status run(Phase& phase, PhaseResult* result, bool keep = false) {
    PhaseContext ctx{comm_, dir_.path(), target_, stop, progress_, "train", keep};
    std::unique_ptr<Store> store;
    if (Status s = posix_store_at(fd_, dir_.path(), &store); !s.ok()) return s;
    ctx.store = store.get();
    const auto t0 = std::chrono::steady_clock::now();
    Status s = phase.run(ctx, result);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return s;
  }
  const std::string& path() const { return dir_.path(); }

  std::atomic<bool> stop{false};
  double seconds = 0;

 private:
  TempDir dir_;
  int fd_ = -1;
  SelfComm comm_;
  TargetInfo target_;
  Progress progress_;
};

}  // namespace iofab::testing
