#include "workloads/collectives/step_schedule.h"

#include <algorithm>

#include "harness/core/units.h"

namespace iofab {

using nlohmann::json;

StepTask compute_task(StepTaskKind kind, int layer, double seconds, int after) {
  StepTask t;
  t.kind = kind;
  t.layer = layer;
  t.seconds = seconds;
  t.after = after;
  return t;
}

StepTask comm_task(StepTaskKind kind, int layer, uint64_t count, DType dtype, uint64_t bytes, int after) {
  StepTask t;
  t.kind = kind;
  t.layer = layer;
  t.count = count;
  t.dtype = dtype;
  t.bytes = bytes;
  t.after = after;
  return t;
}

bool is_comm(StepTaskKind k) { return k != StepTaskKind::kForward && k != StepTaskKind::kBackward; }

CollOp comm_op(StepTaskKind k) {
  switch (k) {
    case StepTaskKind::kAllGather:
      return coll_op("all_gather");
    case StepTaskKind::kReduceScatter:
      return coll_op("reduce_scatter");
    default:
      return coll_op("all_reduce");
  }
}

std::string task_label(const StepTask& t) {
  switch (t.kind) {
    case StepTaskKind::kForward:
      return "fwd " + std::to_string(t.layer);
    case StepTaskKind::kBackward:
      return "bwd " + std::to_string(t.layer);
    default:
      return std::string(coll_op_name(comm_op(t.kind))) + " " + std::to_string(t.layer) + " (" +
             units::format_bytes(static_cast<double>(t.bytes)) + ")";
  }
}

double schedule_bytes_per_rank(const StepSchedule& s, int ranks) {
  double total = 0;
  for (const auto& t : s.comm)
    total += bus_bytes_per_rank(comm_op(t.kind), ranks, static_cast<double>(t.bytes));
  return total;
}

double schedule_compute_seconds(const StepSchedule& s) {
  double total = 0;
  for (const auto& t : s.compute) total += t.seconds;
  return total;
}

void schedule_buffer_bytes(const StepSchedule& s, int ranks, uint64_t* send, uint64_t* recv) {
  *send = 0;
  *recv = 0;
  for (const auto& t : s.comm) {
    const uint64_t one = t.count * dtype_size(t.dtype);
    const uint64_t all = one * static_cast<uint64_t>(ranks);
    uint64_t snd = one, rcv = one;
    if (t.kind == StepTaskKind::kAllGather) rcv = all;
    if (t.kind == StepTaskKind::kReduceScatter) snd = all;
    *send = std::max(*send, snd);
    *recv = std::max(*recv, rcv);
  }
}

bool simulate_step(const StepSchedule& s, const std::function<double(const StepTask&)>& comm_seconds,
                   StepTiming* out) {
  std::vector<double> compute_end(s.compute.size()), comm_end(s.comm.size());
  size_t ic = 0, im = 0;
  double compute_free = 0, comm_free = 0;
  *out = StepTiming{};
  while (ic < s.compute.size() || im < s.comm.size()) {
    bool moved = false;
    if (ic < s.compute.size()) {
      const StepTask& t = s.compute[ic];
      if (t.after < 0 || static_cast<size_t>(t.after) < im) {
        const double start =
            std::max(compute_free, t.after < 0 ? 0.0 : comm_end[static_cast<size_t>(t.after)]);
        compute_free = compute_end[ic++] = start + t.seconds;
        out->compute_s += t.seconds;
        moved = true;
      }
    }
    if (im < s.comm.size()) {
      const StepTask& t = s.comm[im];
      if (t.after < 0 || static_cast<size_t>(t.after) < ic) {
        const double start =
            std::max(comm_free, t.after < 0 ? 0.0 : compute_end[static_cast<size_t>(t.after)]);
        const double d = comm_seconds(t);
        comm_free = comm_end[im++] = start + d;
        out->comm_s += d;
        moved = true;
      }
    }
    if (!moved) return false;
  }
  out->step_s = std::max(compute_free, comm_free);
  return true;
}

json schedule_to_json(const StepSchedule& s) {
  // Compact rows, capped, so a 2,000-layer model does not swell the report.
  constexpr size_t kMaxRows = 1000;
  json comm = json::array();
  for (size_t i = 0; i < s.comm.size() && i < kMaxRows; ++i) {
    const StepTask& t = s.comm[i];
    comm.push_back(
        {{"op", coll_op_name(comm_op(t.kind))},
         {"layer", t.layer},
         {"bytes", t.bytes},
         {"after", t.after < 0 ? json("start") : json(task_label(s.compute[static_cast<size_t>(t.after)]))}});
  }
  return {{"compute_tasks", s.compute.size()},
          {"comm_tasks", s.comm.size()},
          {"comm", comm},
          {"comm_truncated", s.comm.size() > kMaxRows}};
}

}  // namespace iofab
