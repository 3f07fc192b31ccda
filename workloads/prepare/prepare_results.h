// What each rank of the prepare phase sends rank 0, and how rank 0 merges
// the ranks into the phase's metrics, details and bound_by.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "harness/phase/phase.h"
#include "workloads/prepare/prepare_pipeline.h"

namespace iofab {

struct PrepareRankReport {
  PipelineFigures figures;
  uint64_t cache_bytes = 0;     // raw bytes looked at after the drop
  uint64_t resident_bytes = 0;  // of them, in the page cache
  std::string drop_error;       // the first refused drop, if any
  double generate_seconds = 0;
  Status status;
};

nlohmann::json to_wire(const PrepareRankReport& r);
Status from_wire(const nlohmann::json& j, PrepareRankReport* out);

// Fills result's metrics and details from every rank's report; *worst gets the first rank's failure.
void summarize_prepare(const std::vector<PrepareRankReport>& ranks, PhaseResult* result, Status* worst);

const std::vector<MetricInfo>& prepare_metric_infos();

}  // namespace iofab
