// The conformance suite every storage engine passes: data written at queue
// depth reads back bit-exact, on tmpfs and on the disk, buffered and O_DIRECT;
// short reads at EOF; errors arrive as -errno in the completion; queue()
// answers kBusy at the queue depth. The TEST_Ps live in engines_test.cc; a
// backend's test file (e.g. engines_uring_test.cc) only instantiates them
// with its engine's cases, so it is built only where the backend is.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "harness/engines/data_fill.h"
#include "harness/engines/engine.h"
#include "harness/engines/io_buffers.h"
#include "test_util.h"

namespace iofab::testing {

struct EngineCase {
  std::string engine;
  std::string base;  // "/dev/shm" (tmpfs) or "/var/tmp" (the disk)
  bool direct = false;
  unsigned queue_depth = 4;
  bool fixed = true;  // EngineOptions::fixed_buffers and fixed_files
};

inline void PrintTo(const EngineCase& c, std::ostream* os) {
  *os << c.engine << " on " << c.base << (c.direct ? " O_DIRECT" : " buffered") << " qd=" << c.queue_depth
      << (c.fixed ? " fixed" : " unfixed");
}

inline std::string engine_case_name(const ::testing::TestParamInfo<EngineCase>& info) {
  const EngineCase& c = info.param;
  std::string name = c.engine + (c.base == "/dev/shm" ? "_tmpfs" : "_disk") +
                     (c.direct ? "_direct" : "_buffered") + "_qd" + std::to_string(c.queue_depth) +
                     (c.fixed ? "" : "_unfixed");
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

// tmpfs and disk, buffered and O_DIRECT; with vary_fixed, each also without
// registered files and buffers.
inline std::vector<EngineCase> engine_matrix(const std::string& engine, unsigned queue_depth,
                                             bool vary_fixed) {
  std::vector<EngineCase> cases;
  for (const char* base : {"/dev/shm", "/var/tmp"}) {
    for (bool direct : {false, true}) {
      cases.push_back(EngineCase{engine, base, direct, queue_depth, true});
      if (vary_fixed) cases.push_back(EngineCase{engine, base, direct, queue_depth, false});
    }
  }
  return cases;
}

class EngineConformance : public ::testing::TestWithParam<EngineCase> {
 protected:
  static constexpr uint32_t kBlock = 16 << 10;
  static constexpr uint64_t kBlocks = 64;

  struct Op {
    IoOp op;
    uint64_t block;
  };

  void SetUp() override;

  // Opens name in the scratch folder with flags (| O_DIRECT for direct cases);
  // -errno on failure.
  int open_scratch(const std::string& name, int flags);
  // Runs ops through the engine at its queue depth, resubmitting short
  // transfers; results_[i] gets op i's bytes moved, or -errno, and what each
  // read brought lands in read_image_ at the block's offset.
  void run(int file, const std::vector<Op>& ops);
  // What block b holds once written: the default data's bytes at its offset.
  std::vector<unsigned char> expected(uint64_t block) const;

  EngineOptions opts_;
  std::unique_ptr<TempDir> dir_;
  std::unique_ptr<Engine> engine_;
  IoBuffers bufs_;
  DataStream data_{20240601};
  int fd_ = -1;
  int file_ = -1;
  std::vector<int> fds_to_close_;
  std::vector<int64_t> results_;
  std::vector<unsigned char> read_image_;

  void TearDown() override;
};

}  // namespace iofab::testing
