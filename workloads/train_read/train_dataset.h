// The dataset a train_read phase reads, on one rank: its folder (the phase's own in the run's store, or
// the user's dataset_dir, a store of its own), rank 0's decision to reuse or generate it, the timed
// generation, the check of a reused one, and the timed listing of a files dataset's tree. TrainReadRun
// (train_read_run.cc) takes these steps in order; the loader and the epochs read through store().
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/comm/wire.h"
#include "harness/core/status.h"
#include "harness/phase/phase.h"
#include "workloads/dataset/dataset.h"
#include "workloads/train_read/train_read_phase.h"

namespace iofab {

// Rank 0's verdict on the dataset folder, sent to every rank.
struct DatasetDecision {
  bool generate = false;
  std::string why;          // why a stale dataset is regenerated; empty otherwise
  uint64_t order_seed = 0;  // the access order's seed: drawn here for a `random` shuffle
  static constexpr auto wire_fields() {
    using D = DatasetDecision;
    return std::tuple{wire_field("generate", &D::generate), wire_field("why", &D::why),
                      wire_field("order_seed", &D::order_seed)};
  }
};

// A files dataset's listing before the first epoch (the startup's first part).
struct DatasetListing {
  bool listed = false;
  uint64_t ns = 0;
  uint64_t files = 0;
};

class TrainDataset {
 public:
  TrainDataset(const TrainReadParams& p, PhaseContext& ctx);

  // The dataset's folder: made in the run's store, or the user's dataset_dir opened (made by rank 0).
  Status open_folder();
  // Rank 0 decides: reuse, or generate (fresh, or over a stale iofab dataset); a folder with anything else
  // is refused. Every rank gets the decision.
  Status decide();
  // Generation, timed on its own from a barrier to the agreement that every rank finished.
  Status generate();
  // A reused dataset's data/ folder is there.
  Status check_reused();
  // A files dataset's tree listed, as DLIO builds its file list at start-up: timed (other layouts: nothing).
  Status list(DatasetListing* out);
  // The lock (rank 0, a dataset_dir) and the dataset_dir's store closed: after the readers' engines.
  void close();
  // The phase's own dataset removed (rank 0, unless kept); a dataset_dir's stays.
  Status remove_unless_kept();

  // The "dataset" details; generated: whether this run made it.
  nlohmann::json details(bool generated) const;
  // "dataset_dir PATH: NOTE" for each note rank 0's preparation left.
  void warn(PhaseResult* result) const;

  Store* store() const { return store_; }
  const DatasetLayout& layout() const { return layout_; }
  const std::string& data() const { return data_; }  // its data/ folder in store()
  const std::string& path() const { return path_; }
  bool user_dir() const { return user_dir_; }
  const DatasetDecision& decision() const { return decision_; }
  double generate_seconds() const { return generate_seconds_; }

 private:
  Status inspect_on_rank0();
  Status list_tree(const std::string& rel, uint64_t* files);

  const TrainReadParams& p_;
  PhaseContext& ctx_;
  Comm& comm_;
  const int rank_;
  const bool user_dir_;
  const std::string path_;
  const DatasetLayout layout_;
  const std::string root_;            // the dataset's folder in its store
  const std::string data_;            // its data/ folder
  std::unique_ptr<Store> dir_store_;  // a dataset_dir's
  Store* store_ = nullptr;            // the dataset's: the run's, or dir_store_
  std::unique_ptr<StoreLock> lock_;   // rank 0, a dataset_dir: held for the whole phase
  std::vector<std::string> prepare_notes_;
  DatasetDecision decision_;
  double generate_seconds_ = 0;
};

}  // namespace iofab
