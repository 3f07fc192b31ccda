// The sweep driver, nccl-tests' way: first one untimed call of every op at
// every size (the warm-up of every size, which also gives each size's pace);
// then for each op and size, and each placement the op has (out of place,
// then in place): the ranks agree to go on, `warmup` untimed calls, then
// `iters` calls back to back with a mark between each (the backend's clock:
// host for MPI, CUDA events for NCCL). The timed span holds the calls and
// the marks only: agreement rounds, fills, barriers and checks all happen
// outside it, and the warm-up calls after the agreement absorb the ranks'
// skew in leaving it. Long runs go in chunks of about 0.1 s with a stop
// check between, and a chunk after one starts with an untimed call for the
// same reason. After the last timed call the ranks wait for each other
// (a barrier) before any work of their own. With `check`, the buffers are then filled, one more
// call runs, and its result is checked (nccl-tests' check run). Every rank
// runs it; the ranks agree before each size whether to go on, so a stop
// (SIGINT) or an error on one rank never leaves the others waiting in a
// collective.
#pragma once

#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/comm/collectives.h"
#include "workloads/collectives/bus_bandwidth.h"
#include "workloads/collectives/time_across_ranks.h"

namespace iofab {

class ParamReader;

struct Progress;

struct SweepSpec {
  std::vector<CollOp> ops;
  uint64_t min_bytes = 1024;
  uint64_t max_bytes = 64ULL << 20;
  double factor = 2;
  int iters = 20;
  int warmup = 5;
  DType dtype = DType::kFloat32;
  RedOp redop = RedOp::kSum;  // the reductions' operator (nccl-tests' -o)
  bool check = true;
  int root = 0;
  // How a size's one time is made from every rank's (nccl-tests' -a); the default is theirs.
  TimeAcrossRanks across = TimeAcrossRanks::kAvg;
  bool out_of_place = true;  // run each op out of place (the ops that have it)
  bool in_place = true;      // and in place (the ops that have it), as nccl-tests' two column groups
  // The timed calls run in chunks, with a stop check between: of about 0.1 s of calls (0), or of this
  // many calls (tests, which need the chunks where they are).
  int stop_check_calls = 0;
};

// min, min*factor, ... up to max (max itself included when min == max); each
// step grows by at least one byte.
std::vector<uint64_t> sweep_sizes(uint64_t min_bytes, uint64_t max_bytes, double factor);
// Fails the suite's min_bytes, max_bytes or factor when they make no sweep that ends, or more than
// 1000 sizes (a collectives or an rdma sweep).
void check_sweep_bounds(ParamReader& r, uint64_t min_bytes, uint64_t max_bytes, double factor);

// One rank's measurement of one op at one size.
struct SizeSample {
  CollOp op = nullptr;
  uint64_t size = 0;   // the sweep size asked for (names the metric)
  uint64_t bytes = 0;  // S: the bytes nccl-tests counts for it (0: too small to run on these ranks)
  uint64_t count = 0;  // elements the call took
  bool in_place = false;
  std::vector<double> iter_seconds;
  double total_seconds = 0;  // first mark to last, over every timed iteration
  bool checked = false;
  uint64_t wrong = 0;

  // Its wire form (per-call nanoseconds packed, packed_u64.h); from_json reads it.
  nlohmann::json to_wire() const;
  static bool from_json(const nlohmann::json& j, SizeSample* out);
};

// Largest send and recv buffers, in bytes, the sweep needs on `ranks` ranks.
void sweep_buffer_bytes(const SweepSpec& spec, int ranks, uint64_t* send, uint64_t* recv);

// The placements `op` runs in under `spec`: out of place (false) first, then in place (true).
std::vector<bool> sweep_placements(const SweepSpec& spec, const CollOpInfo& op);

// Runs the sweep on this rank. Comm is the control plane (barriers, agreement).
Status run_sweep(Collectives& coll, Comm& comm, const SweepSpec& spec, const std::atomic<bool>& stop,
                 Progress* progress, std::vector<SizeSample>* out);

}  // namespace iofab
