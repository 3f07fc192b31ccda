// A training step as two lanes that run side by side: the compute lane (the
// accelerator's forward and backward, emulated by waiting) and the comm lane
// (collectives, one at a time, as on one NCCL stream). A task starts when
// the task before it in its lane is done and, if `after` names one, when
// that task in the other lane is done: a bucket's all-reduce waits for the
// backward of its last layer; a layer's forward waits for its all-gather.
// DDP and FSDP are two builders of this one shape (ddp_schedule.h,
// fsdp_schedule.h); the runner (step_runner.h) and the simulator below
// execute any schedule.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/comm/collectives.h"
#include "workloads/collectives/bus_bandwidth.h"

namespace iofab {

enum class StepTaskKind { kForward, kBackward, kAllReduce, kAllGather, kReduceScatter };

struct StepTask {
  StepTaskKind kind = StepTaskKind::kForward;
  int layer = 0;
  double seconds = 0;  // compute tasks: the emulated duration
  // Comm tasks: the call's count (all_reduce: the buffer; all_gather: each
  // rank's shard sent; reduce_scatter: each rank's shard received), dtype,
  // and S, the bytes nccl-tests counts (all_gather, reduce_scatter: the full buffer).
  uint64_t count = 0;
  DType dtype = DType::kBFloat16;
  uint64_t bytes = 0;
  int after = -1;  // index in the other lane that must finish first; -1: none
};

StepTask compute_task(StepTaskKind kind, int layer, double seconds, int after = -1);
StepTask comm_task(StepTaskKind kind, int layer, uint64_t count, DType dtype, uint64_t bytes, int after);

struct StepSchedule {
  std::vector<StepTask> compute;
  std::vector<StepTask> comm;
};

bool is_comm(StepTaskKind k);
CollOp comm_op(StepTaskKind k);             // comm kinds only
std::string task_label(const StepTask& t);  // "fwd 3", "all_gather 3 (4.00 MiB)"

// Bytes each rank sends in one step: S * bus factor summed over the comm lane.
double schedule_bytes_per_rank(const StepSchedule& s, int ranks);
double schedule_compute_seconds(const StepSchedule& s);
// Largest send and recv buffers, in bytes, the comm lane needs (out of place).
void schedule_buffer_bytes(const StepSchedule& s, int ranks, uint64_t* send, uint64_t* recv);

// Timings of one step.
struct StepTiming {
  double step_s = 0;     // start to the end of both lanes
  double compute_s = 0;  // compute lane busy
  double comm_s = 0;     // comm lane busy
};

// Runs the schedule on paper, with comm_seconds(task) for each collective.
// False if the dependencies can never all be met.
bool simulate_step(const StepSchedule& s, const std::function<double(const StepTask&)>& comm_seconds,
                   StepTiming* out);

nlohmann::json schedule_to_json(const StepSchedule& s);

}  // namespace iofab
