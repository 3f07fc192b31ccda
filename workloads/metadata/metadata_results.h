// The metadata phase's figures: per sub-step ops/s across ranks (every rank's
// operations over the slowest rank's time, as mdtest's rate), time, latency
// percentiles and errors by errno; the plan; a warning when a client cache
// could have answered; the NFS client's own per-op counts beside them.
#pragma once

#include <vector>

#include "harness/fs/mountstats.h"
#include "harness/phase/phase.h"
#include "workloads/metadata/metadata_plan.h"
#include "workloads/metadata/metadata_tally.h"

namespace iofab {

std::vector<MetricInfo> metadata_metric_table();

// steps[k] was timed as total[k] (merged across ranks).
void put_metadata_results(const MetadataParams& p, const MetadataPlan& plan, const std::vector<MdStep>& steps,
                          const std::vector<MdTally>& total, PhaseResult* result);

// What the NFS client sent during the phase (after - before), as details.nfs_ops.
void put_nfs_op_counts(const NfsOpCounts& before, const NfsOpCounts& after, PhaseResult* result);

}  // namespace iofab
