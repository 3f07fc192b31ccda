#include "workloads/phase_table.h"

#include "workloads/checkpoint/checkpoint_phase.h"
#include "workloads/collectives_phase.h"
#include "workloads/ingest_phase.h"
#include "workloads/metadata/metadata_phase.h"
#include "workloads/model_load/model_load_phase.h"
#include "workloads/prepare_phase.h"
#include "workloads/rdma/fabric_ceiling.h"
#include "workloads/rdma_phase.h"
#include "workloads/restore/restore_phase.h"
#include "workloads/train_read_phase.h"

namespace iofab {

const std::vector<PhaseKind>& phase_table() {
  static const std::vector<PhaseKind> kTable = {
      {"ingest", "large sequential writes, many streams, fsync at end", &parse_ingest, &ingest_metrics,
       nullptr, "", "write_bytes", true},
      {"prepare", "data preparation: small raw files read, zstd or busy CPU per sample, tar shards written",
       &parse_prepare, &prepare_metrics, nullptr, "read_bytes", ""},
      {"train_read", "data loader: reshuffled random sample reads, batches, prefetch, emulated compute, AU",
       &parse_train_read, &train_read_metrics, nullptr, "dataset_read_bytes", "", true, true, false, true,
       train_read_solo_metrics()},
      {"checkpoint", "bursts of big sequential writes, durable commit, stall vs the 5% budget",
       &parse_checkpoint, &checkpoint_metrics, nullptr, "", "write_bytes", true, false, true, true,
       checkpoint_solo_metrics()},
      {"restore", "every rank reads the checkpoint back (fanout), cold, verified", &parse_restore,
       &restore_metrics, nullptr, "read_bytes", "", true},
      {"model_load", "inference cold start: replicas load safetensors weights, cold, verified; time-to-ready",
       &parse_model_load, &model_load_metrics, nullptr, "read_bytes", ""},
      {"collectives", "nccl-tests-style sweeps; a DDP step vs an FSDP step, over MPI or NCCL", &parse_collectives,
       &collectives_metrics, nullptr, "", "", true},
      {"rdma", "verbs RDMA write/read/send between rank pairs: bytes/s, message rate, latency percentiles",
       &parse_rdma, &rdma_metrics, &join_collectives_and_verbs, "", "", true},
      // Moves no bytes worth verifying (at most a few KiB a file): its figures are operations a second.
      {.name = "metadata",
       .summary = "file create, stat, open, read, list, rename, remove rates, per-rank or shared folders (mdtest)",
       .parse = &parse_metadata,
       .metrics = &metadata_metrics},
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
