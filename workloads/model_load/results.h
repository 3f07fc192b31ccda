// The model_load phase's result: every rank sends rank 0 its replicas' figures (time-to-ready, bytes,
// what failed); rank 0 merges them, judges the slowest replica against ready_budget at full size and
// fills the metrics, details and warnings. A file that fails its check fails the phase by name (`failed`:
// the storage returned wrong bytes); one that could not be read is an error.
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.h"
#include "harness/phase/phase.h"
#include "workloads/model_load/params.h"
#include "workloads/model_load/replica.h"
#include "workloads/model_load/weights.h"

namespace iofab {

// What the whole phase knows beside its replicas: the files, and how they got there.
struct LoadSetup {
  std::string folder;  // in the run's store
  std::string engine;  // resolved
  ModelIndex index;
  std::vector<WeightFile> files;
  bool wrote = false;        // this phase wrote them (else weights_from's)
  double write_seconds = 0;  // this rank's, writing its share
  DropOutcome drop;          // this rank's
  DropOutcome safetensors_drop;  // this rank's, before safetensors' load
};

// Collective. local: this rank's outcome. Returns local on ranks other than 0; on rank 0 the phase's.
Status report_model_load(PhaseContext& ctx, const ModelLoadParams& p, const LoadSetup& setup,
                         const std::vector<Replica>& replicas, const Status& local, PhaseResult* result);

}  // namespace iofab
