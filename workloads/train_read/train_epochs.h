// A train_read phase's timed epochs on one rank: before each, untimed, the pages meant to be cold dropped,
// what is resident measured and the batch plan drawn; then the epoch through the loader (or the
// DataLoader profile), with the dataset's and the cache tier's device counters around it. Also the
// storage ceiling's epoch beside a DataLoader profile. TrainReadRun (train_read_run.cc) makes the readers
// and hands them here.
#pragma once

#include <cstdint>
#include <string>

#include "harness/comm/local_rank.h"
#include "harness/core/status.h"
#include "harness/phase/phase.h"
#include "workloads/train_read/epoch_order.h"
#include "workloads/train_read/torch_loader_profile.h"
#include "workloads/train_read/train_cache.h"
#include "workloads/train_read/train_dataset.h"
#include "workloads/train_read/train_loader.h"
#include "workloads/train_read/train_read_results.h"

namespace iofab {

// What the epochs read through, and where their bytes are counted.
struct EpochReaders {
  const TrainDataset* dataset = nullptr;
  LocalRank where;                        // this rank among its host's
  TrainLoader* loader = nullptr;          // the native loader (the ceiling's with a profile)
  TorchLoaderProfile* profile = nullptr;  // loader pytorch; else nullptr
  SampleCache* cache_tier = nullptr;      // cache_dir; else nullptr
  EpochOrder order;
  std::string device;        // the dataset's block device; "" unknown
  bool reads_disk = false;   // this rank reads its counters (the host's first rank)
  std::string cache_device;  // the cache tier's
  bool reads_cache_disk = false;
};

class TrainEpochs {
 public:
  // result: this rank's, its setup_seconds added up before each epoch; start_ns: the phase's start.
  TrainEpochs(const TrainReadParams& p, PhaseContext& ctx, const EpochReaders& readers, PhaseResult* result,
              uint64_t start_ns);

  // Epochs 0 .. epochs-1, then with a cache tier the source-only epoch (its own permutation, the next
  // epoch's), read with the cache out of the path. Following a group's clock: epochs until it ends.
  Status run(RankReport* local);
  // The storage's ceiling beside the profile: the native loader over epoch 0's plan, cold as the suite's
  // drop_cache makes the first epoch.
  Status run_ceiling(RankReport* local);

 private:
  Status run_epoch(uint64_t epoch, bool source_only, RankReport* local);
  bool drop_before(uint64_t epoch) const {
    return p_.drop_cache == DropCache::kEveryEpoch || (p_.drop_cache == DropCache::kFirstEpoch && epoch == 0);
  }

  const TrainReadParams& p_;
  PhaseContext& ctx_;
  Comm& comm_;
  const int rank_;
  const EpochReaders& r_;
  PhaseResult* result_;
  uint64_t window_end_ns_;  // the phase's start, then the last epoch's end
};

}  // namespace iofab
