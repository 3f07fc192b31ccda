// The hosts' telemetry (harness/telemetry/sampler.h) in each phase's report: every rank sends the
// samples its host's sampler took during each phase (none when another rank of the host samples),
// and rank 0 puts them in details.telemetry.
#pragma once

#include <string>
#include <vector>

#include "harness/results/report.h"

namespace iofab {

// per_rank: each rank's JSON array, one entry a phase (an object from telemetry_json with "host",
// or null). Fills phases[i].details["telemetry"] = {"interval_s", "hosts": [...]} (and "off" when
// interval_s is 0).
void attach_telemetry(const std::vector<std::string>& per_rank, double interval_s,
                      std::vector<PhaseReport>* phases);

}  // namespace iofab
