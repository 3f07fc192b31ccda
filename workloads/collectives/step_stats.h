// A step takes as long as its slowest rank: for each step, the slowest
// rank's step, compute and comm times; then the mean over steps. Exposed
// comm is what training waits for: step - compute.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "harness/core/status.h"
#include "workloads/collectives/step_schedule.h"

namespace iofab {

struct StepStats {
  int steps = 0;
  double step_s = 0;
  double compute_s = 0;
  double comm_s = 0;
  double exposed_s = 0;
  double exposed_fraction = 0;  // exposed / step
  double step_min_s = 0;
  double step_max_s = 0;

  nlohmann::json to_json() const;
};

// per_rank[r][k]: rank r's timing of step k; every rank ran the same steps.
StepStats merge_steps(const std::vector<std::vector<StepTiming>>& per_rank);

nlohmann::json step_timing_to_json(const StepTiming& t);
bool step_timing_from_json(const nlohmann::json& j, StepTiming* out);
// Its wire form between ranks (harness/comm/wire.h): the same JSON.
nlohmann::json to_wire(const StepTiming& t);
Status from_wire(const nlohmann::json& j, StepTiming* out);

}  // namespace iofab
