#include "workloads/phase_table.h"

#include <utility>
#include <vector>

#include "workloads/checkpoint/checkpoint_phase.h"
#include "workloads/collectives/collectives_phase.h"
#include "workloads/ingest/ingest_phase.h"
#include "workloads/metadata/metadata_phase.h"
#include "workloads/model_load/links.h"
#include "workloads/model_load/model_load_phase.h"
#include "workloads/prepare/prepare_phase.h"
#include "workloads/rdma/fabric_ceiling.h"
#include "workloads/rdma/rdma_phase.h"
#include "workloads/restore/links.h"
#include "workloads/restore/restore_phase.h"
#include "workloads/train_read/train_read_phase.h"

namespace iofab {

namespace {

constexpr PhasePlot kTrainReadPlots[] = {PhasePlot::kLatencyCdf};
constexpr PhasePlot kCheckpointPlots[] = {PhasePlot::kCheckpointStall};
constexpr PhasePlot kRestorePlots[] = {PhasePlot::kRestoreTime};
constexpr ConsoleLine kPrepareConsoleLines[] = {ConsoleLine::kBoundBy};
constexpr ConsoleLine kTrainReadConsoleLines[] = {ConsoleLine::kLoaderVsCeiling};
constexpr ConsoleLine kRdmaConsoleLines[] = {ConsoleLine::kCollectivesVsVerbs};

}  // namespace

namespace {

// The table in two parts, only to keep each function short: the data path's phases, then the rest.
std::vector<PhaseKind> data_path_rows() {
  return {
      {.name = "ingest",
       .summary = "large sequential writes, many streams, fsync at end",
       .parse = &parse_ingest,
       .metrics = &ingest_metrics,
       .target_write_bytes = "write_bytes",
       .object_store = true,
       .per_host = true},
      {.name = "prepare",
       .summary = "data preparation: small raw files read, zstd or busy CPU per sample, tar shards written",
       .parse = &parse_prepare,
       .metrics = &prepare_metrics,
       .target_read_bytes = "read_bytes",
       .verify_metrics = kPrepareVerifyMetrics,
       .console_lines = kPrepareConsoleLines},
      {.name = "train_read",
       .summary = "data loader: reshuffled random sample reads, batches, prefetch, emulated compute, AU",
       .parse = &parse_train_read,
       .metrics = &train_read_metrics,
       .target_read_bytes = "dataset_read_bytes",
       .object_store = true,
       .follows_clock = true,
       .sets_up_first = true,
       .solo_metrics = train_read_solo_metrics(),
       .verify_metrics = kTrainReadVerifyMetrics,
       .scale = ScaleRule::kWhenScaleGiven,
       .plots = kTrainReadPlots,
       .console_lines = kTrainReadConsoleLines},
      {.name = "checkpoint",
       .summary = "bursts of big sequential writes, durable commit, stall vs the 5% budget",
       .parse = &parse_checkpoint,
       .metrics = &checkpoint_metrics,
       .target_write_bytes = "write_bytes",
       .object_store = true,
       .publishes_windows = true,
       .sets_up_first = true,
       .solo_metrics = checkpoint_solo_metrics(),
       .per_host = true,
       .scale = ScaleRule::kAlways,
       .plots = kCheckpointPlots,
       .definitions = PhaseDefinitions::kCheckpointStall,
       .budget_metric = "budget_margin"},
  };
}

std::vector<PhaseKind> read_back_and_fabric_rows() {
  return {
      {.name = "restore",
       .summary = "every rank reads the checkpoint back (fanout), cold, verified",
       .parse = &parse_restore,
       .metrics = &restore_metrics,
       .target_read_bytes = "read_bytes",
       .object_store = true,
       .verify_metrics = kRestoreVerifyMetrics,
       .links = restore_links(),
       .plots = kRestorePlots,
       .definitions = PhaseDefinitions::kRestoreBudget},
      {.name = "model_load",
       .summary = "inference cold start: replicas load safetensors weights, cold, verified; time-to-ready",
       .parse = &parse_model_load,
       .metrics = &model_load_metrics,
       .target_read_bytes = "read_bytes",
       .verify_metrics = kModelLoadVerifyMetrics,
       .links = model_load_links()},
      {.name = "collectives",
       .summary = "nccl-tests-style sweeps; a DDP step vs an FSDP step, over MPI or NCCL",
       .parse = &parse_collectives,
       .metrics = &collectives_metrics,
       .object_store = true,
       .per_host = true},
      {.name = "rdma",
       .summary = "verbs RDMA write/read/send between rank pairs: bytes/s, message rate, latency percentiles",
       .parse = &parse_rdma,
       .metrics = &rdma_metrics,
       .after_all = &join_collectives_and_verbs,
       .object_store = true,
       .per_host = true,
       .console_lines = kRdmaConsoleLines},
      // Moves no bytes worth verifying (at most a few KiB a file): its figures are operations a second. On an
      // object store it runs create (PUT), stat (HEAD), read (GET), list (LIST) and remove (DELETE).
      {.name = "metadata",
       .summary =
           "file create, stat, open, read, list, rename, remove rates, per-rank or shared folders (mdtest)",
       .parse = &parse_metadata,
       .metrics = &metadata_metrics,
       .object_store = true},
  };
}

}  // namespace

const std::vector<PhaseKind>& phase_table() {
  static const std::vector<PhaseKind> kTable = [] {
    std::vector<PhaseKind> rows = data_path_rows();
    for (PhaseKind& row : read_back_and_fabric_rows()) rows.push_back(std::move(row));
    return rows;
  }();
  return kTable;
}

const PhaseKind* find_phase_kind(std::string_view name) {
  for (const auto& k : phase_table()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

const PhaseLink* read_back_link(std::string_view name) {
  const PhaseKind* kind = find_phase_kind(name);
  if (kind == nullptr) return nullptr;
  for (const PhaseLink& link : kind->links) {
    if (link.read_back) return &link;
  }
  return nullptr;
}

}  // namespace iofab
