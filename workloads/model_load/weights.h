// The weights' files in the run's store: written once (untimed setup), found again through the index by
// every rank of this phase or of a later one (weights_from), and their cached pages dropped before the
// clock starts, so every load is a cold start. Every namespace call goes through the Store.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "harness/phase/phase.h"
#include "workloads/model_load/params.h"

namespace iofab {

struct WeightFile {
  std::string name;  // in the weights' folder
  uint64_t bytes = 0;
};

// Collective. Rank 0 makes folder; file i is written by rank i % ranks through the engine named engine
// (block_size pieces at queue_depth) and synced; rank 0 writes the index last. *seconds gets this rank's
// time writing. Every rank returns the same outcome.
Status write_weights(PhaseContext& ctx, const ModelLoadParams& p, const std::string& engine,
                     const std::string& folder, double* seconds);

// Reads folder's model.safetensors.index.json and the size of every file it names, in its order.
Status find_weights(Store& store, const std::string& folder, ModelIndex* index,
                    std::vector<WeightFile>* files);

// What dropping the pages left: bytes measured, of them still cached, and the first problem.
struct DropOutcome {
  uint64_t checked = 0;
  uint64_t resident = 0;
  std::string problem;
};
// Writes back and drops the cached pages of every file, then measures what stayed.
DropOutcome drop_weight_pages(Store& store, const std::string& folder, const std::vector<WeightFile>& files);

}  // namespace iofab
