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

// steps[k] was timed as total[k] (merged across ranks); made: the files each rank made.
void put_metadata_results(const MetadataParams& p, const MetadataPlan& plan, uint64_t made,
                          const std::vector<MdStep>& steps, const std::vector<MdTally>& total,
                          PhaseResult* result);

// The create step's stonewall figures, as IO500 reports them beside the step's own rate: the items made
// when the stonewall fired (every rank, least and most a rank), its time, their rate.
void put_stonewall_results(const MetadataParams& p, const MdStonewall& w, PhaseResult* result);

// The steps asked for that an object store cannot do, each with why, as details.skipped_on_object_store and
// one warning naming them: notes, not errors.
void put_object_store_skips(const std::vector<MdStep>& asked, PhaseResult* result);

// What the NFS client sent during the phase (after - before), as details.nfs_ops.
void put_nfs_op_counts(const NfsOpCounts& before, const NfsOpCounts& after, PhaseResult* result);

}  // namespace iofab
