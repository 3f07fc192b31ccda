#include "workloads/collectives/step_stats.h"

#include <algorithm>

namespace iofab {

using nlohmann::json;

json StepStats::to_json() const {
  return {{"steps", steps},           {"step_s", step_s},        {"compute_s", compute_s},
          {"comm_s", comm_s},         {"exposed_s", exposed_s},  {"exposed_fraction", exposed_fraction},
          {"step_min_s", step_min_s}, {"step_max_s", step_max_s}};
}

StepStats merge_steps(const std::vector<std::vector<StepTiming>>& per_rank) {
  StepStats out;
  if (per_rank.empty()) return out;
  size_t steps = per_rank[0].size();
  for (const auto& r : per_rank) steps = std::min(steps, r.size());
  for (size_t k = 0; k < steps; ++k) {
    const StepTiming* slowest = &per_rank[0][k];
    for (const auto& r : per_rank) {
      if (r[k].step_s > slowest->step_s) slowest = &r[k];
    }
    out.step_s += slowest->step_s;
    out.compute_s += slowest->compute_s;
    out.comm_s += slowest->comm_s;
    out.step_min_s = k == 0 ? slowest->step_s : std::min(out.step_min_s, slowest->step_s);
    out.step_max_s = std::max(out.step_max_s, slowest->step_s);
  }
  out.steps = static_cast<int>(steps);
  if (steps == 0) return out;
  const double n = static_cast<double>(steps);
  out.step_s /= n;
  out.compute_s /= n;
  out.comm_s /= n;
  out.exposed_s = std::max(0.0, out.step_s - out.compute_s);
  out.exposed_fraction = out.step_s > 0 ? out.exposed_s / out.step_s : 0;
  return out;
}

json step_timing_to_json(const StepTiming& t) { return json::array({t.step_s, t.compute_s, t.comm_s}); }

bool step_timing_from_json(const json& j, StepTiming* out) {
  if (!j.is_array() || j.size() != 3 || !j[0].is_number() || !j[1].is_number() || !j[2].is_number())
    return false;
  *out = {j[0].get<double>(), j[1].get<double>(), j[2].get<double>()};
  return true;
}

json to_wire(const StepTiming& t) { return step_timing_to_json(t); }

Status from_wire(const json& j, StepTiming* out) {
  return step_timing_from_json(j, out) ? Status::Ok()
                                       : Status::Internal("expected [step_s, compute_s, comm_s]");
}

}  // namespace iofab
