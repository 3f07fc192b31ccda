// train_read with loader: pytorch, on rank 0: the storage's ceiling (the native loader's epoch over the
// same dataset) beside the profile's samples/s, their ratio (framework_fraction), the profile's
// counters, which calibration it spent, and the warnings that go with them.
#pragma once

#include <vector>

#include "harness/phase/phase.h"
#include "workloads/calibration/calibration.h"
#include "workloads/calibration/loader_costs.h"
#include "workloads/train_read/train_read_results.h"

namespace iofab {

struct LoaderProfileSummary {
  const Calibration* calibration = nullptr;
  const LoaderCalibration* costs = nullptr;
  bool costs_from_file = false;
  std::string ceiling_engine;  // the native loader's engine
};

// After summarize_train_read (which set samples_per_s).
void summarize_loader_profile(const TrainReadParams& p, const std::vector<RankReport>& ranks,
                              const LoaderProfileSummary& s, PhaseResult* result);

}  // namespace iofab
