// What each initiator measured, and the phase's figures from all of them
// (on rank 0). Public metric names (DESIGN.md), per test T in write, read, send:
//   T_bytes_per_s.<size>             mean over links of each link's bytes/s (one pair: ib_T_bw's BW average)
//   T_bytes_per_s.max                the best size's
//   T_total_bytes_per_s.<size>|.max  sum over links running at once (all_to_one: rank 0's incast)
//   T_worst_link_bytes_per_s.<size>|.max   the slowest link's
//   T_msg_rate.<size>|.max           mean over links of messages/s
//   T_latency_{p50,p99,p999,max}_s.<size>  over every initiator's samples merged
//   T_latency_{p50,p99,p999,max}_s   the same at the smallest size (perftest's latency default is 2 bytes)
// WRITE and SEND latency are half the round trip; READ latency the full one.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "harness/phase/phase.h"
#include "harness/stats/histogram.h"
#include "workloads/rdma/pairing.h"
#include "workloads/rdma/rdma_loops.h"

namespace iofab {

struct RdmaSample {
  RdmaTest test = RdmaTest::kWrite;
  bool latency = false;
  uint64_t size = 0;
  RdmaLink link;
  BwMeasure bw;   // bandwidth samples
  Histogram lat;  // latency samples, ns

  nlohmann::json to_json() const;
  static bool from_json(const nlohmann::json& j, RdmaSample* out);
};

struct BwSummary {
  RdmaTest test = RdmaTest::kWrite;
  uint64_t size = 0;
  int links = 0;
  double mean = 0;   // bytes/s
  double worst = 0;  // bytes/s
  double total = 0;  // bytes/s
  double msg_rate = 0;
  std::vector<double> per_link;  // in the order the samples came
  std::vector<BwMeasure> per_link_raw;
  std::vector<RdmaLink> link_ids;
};

struct LatSummary {
  RdmaTest test = RdmaTest::kWrite;
  uint64_t size = 0;
  Histogram merged;
  double p50_s = 0, p99_s = 0, p999_s = 0, max_s = 0, min_s = 0, mean_s = 0;
};

// Grouped by (test, size), in order of first appearance.
std::vector<BwSummary> summarize_bandwidth(const std::vector<RdmaSample>& samples);
std::vector<LatSummary> summarize_latency(const std::vector<RdmaSample>& samples);

// Fills result->metrics and details ("bandwidth", "latency" per size).
void add_rdma_results(const std::vector<RdmaSample>& samples, PhaseResult* result);

}  // namespace iofab
