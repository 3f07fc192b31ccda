#include "workloads/phase_table.h"

#include "workloads/checkpoint/checkpoint_phase.h"
#include "workloads/collectives/collectives_phase.h"
#include "workloads/ingest/ingest_phase.h"
#include "workloads/metadata/metadata_phase.h"
#include "workloads/model_load/model_load_phase.h"
#include "workloads/prepare/prepare_phase.h"
#include "workloads/rdma/fabric_ceiling.h"
#include "workloads/rdma/rdma_phase.h"
#include "workloads/restore/restore_phase.h"
#include "workloads/train_read/train_read_phase.h"

namespace iofab {

const std::vector<PhaseKind>& phase_table() {
  static const std::vector<PhaseKind> kTable = {
      {.name = "ingest",
       .summary = "large sequential writes, many streams, fsync at end",
       .parse = &parse_ingest,
       .metrics = &ingest_metrics,
       .target_write_bytes = "write_bytes",
       .object_store = true},
      {.name = "prepare",
       .summary = "data preparation: small raw files read, zstd or busy CPU per sample, tar shards written",
       .parse = &parse_prepare,
       .metrics = &prepare_metrics,
       .target_read_bytes = "read_bytes",
       .verify_metrics = kPrepareVerifyMetrics},
      {.name = "train_read",
       .summary = "data loader: reshuffled random sample reads, batches, prefetch, emulated compute, AU",
       .parse = &parse_train_read,
       .metrics = &train_read_metrics,
       .target_read_bytes = "dataset_read_bytes",
       .object_store = true,
       .follows_clock = true,
       .sets_up_first = true,
       .solo_metrics = train_read_solo_metrics(),
       .verify_metrics = kTrainReadVerifyMetrics},
      {.name = "checkpoint",
       .summary = "bursts of big sequential writes, durable commit, stall vs the 5% budget",
       .parse = &parse_checkpoint,
       .metrics = &checkpoint_metrics,
       .target_write_bytes = "write_bytes",
       .object_store = true,
       .publishes_windows = true,
       .sets_up_first = true,
       .solo_metrics = checkpoint_solo_metrics()},
      {.name = "restore",
       .summary = "every rank reads the checkpoint back (fanout), cold, verified",
       .parse = &parse_restore,
       .metrics = &restore_metrics,
       .target_read_bytes = "read_bytes",
       .object_store = true,
       .verify_metrics = kRestoreVerifyMetrics},
      {.name = "model_load",
       .summary = "inference cold start: replicas load safetensors weights, cold, verified; time-to-ready",
       .parse = &parse_model_load,
       .metrics = &model_load_metrics,
       .target_read_bytes = "read_bytes",
       .verify_metrics = kModelLoadVerifyMetrics},
      {.name = "collectives",
       .summary = "nccl-tests-style sweeps; a DDP step vs an FSDP step, over MPI or NCCL",
       .parse = &parse_collectives,
       .metrics = &collectives_metrics,
       .object_store = true},
      {.name = "rdma",
       .summary = "verbs RDMA write/read/send between rank pairs: bytes/s, message rate, latency percentiles",
       .parse = &parse_rdma,
       .metrics = &rdma_metrics,
       .after_all = &join_collectives_and_verbs,
       .object_store = true},
      // Moves no bytes worth verifying (at most a few KiB a file): its figures are operations a second. On an
      // object store it runs create (PUT), stat (HEAD), read (GET), list (LIST) and remove (DELETE).
      {.name = "metadata",
       .summary =
           "file create, stat, open, read, list, rename, remove rates, per-rank or shared folders (mdtest)",
       .parse = &parse_metadata,
       .metrics = &metadata_metrics,
       .object_store = true},
  };
  return kTable;
}

const PhaseKind* find_phase_kind(std::string_view name) {
  for (const auto& k : phase_table()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

}  // namespace iofab
