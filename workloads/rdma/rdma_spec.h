// The `rdma` phase's settings, parsed once from the suite (rdma_phase.cc)
// and passed down unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "harness/rdma/fabric.h"

namespace iofab {

// What one test moves, as perftest's ib_write_*, ib_read_*, ib_send_*.
enum class RdmaTest { kWrite, kRead, kSend };
std::string_view rdma_test_name(RdmaTest t);  // "write", "read", "send"
std::optional<RdmaTest> parse_rdma_test(std::string_view name);

enum class RdmaPattern { kPairs, kAllToOne };
std::string_view rdma_pattern_name(RdmaPattern p);  // "pairs", "all_to_one"

struct RdmaSpec {
  std::vector<RdmaTest> tests = {RdmaTest::kWrite, RdmaTest::kRead, RdmaTest::kSend};
  bool bandwidth = true;
  bool latency = true;
  RdmaPattern pattern = RdmaPattern::kPairs;
  uint64_t min_bytes = 2;
  uint64_t max_bytes = 8ULL << 20;
  double factor = 2;
  int qps = 1;
  uint32_t tx_depth = 128;
  uint32_t rx_depth = 512;
  uint32_t iters = 1000;  // per queue pair per size (bandwidth); ping-pongs per size (latency)
  uint32_t warmup = 100;  // untimed ping-pongs before each latency size
  double duration_s = 0;  // > 0: bandwidth runs this long per size instead of `iters`
  RdmaMemory memory = RdmaMemory::kHost;
  FabricChoice fabric;
  double stall_s = 30;  // no completion for this long: the peer is gone

  // Work requests per signaled completion in bandwidth runs: a quarter of the
  // send queue, so four signals are in flight and the queue never drains.
  uint32_t cq_mod() const { return tx_depth >= 4 ? tx_depth / 4 : 1; }
  // Each queue pair's slot: the largest message, rounded to a cache line.
  uint64_t slot_bytes() const { return (max_bytes + 63) / 64 * 64; }
};

}  // namespace iofab
