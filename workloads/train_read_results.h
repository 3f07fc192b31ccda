// train_read's figures: what each rank sends rank 0 at the end of the phase
// (every epoch's stats, page-cache state and device counters), and how rank
// 0 merges them into the phase's metrics, details and warnings.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "harness/fs/diskstats.h"
#include "harness/phase/phase.h"
#include "workloads/dataset.h"
#include "workloads/train_loader.h"
#include "workloads/train_windows.h"
#include "workloads/train_read_phase.h"

namespace iofab {

// One epoch as a rank saw it, sent to rank 0.
struct EpochRecord {
  uint64_t epoch = 0;
  bool ok = false;
  EpochStats stats;
  CacheCounts cache;
  bool drop = false;
  uint64_t planned_count = 0;
  uint64_t planned_sum = 0;
  bool disk_seen = false;  // the device's counters were read around the epoch
  DiskCounters disk;
  // The cache tier (cache_dir): its files' page-cache state at the epoch's start, and its device's counters.
  CacheCounts tier;
  bool tier_disk_seen = false;
  DiskCounters tier_disk;
};

// What a rank sends rank 0 at the end of the phase.
struct RankReport {
  std::string host;
  std::string engine;  // empty when the loader was never made
  bool verified = false;
  std::string device;
  uint64_t memory_bytes = 0;  // the host's, for MLPerf's minimum dataset size
  std::vector<EpochRecord> epochs;
  std::vector<EpochRecord> source_epochs;  // with a cache tier: the source-only epoch, when it ran
  WindowSplit windows;                     // in a concurrent group with windows: its figures split by them
  Status status;
};

nlohmann::json to_wire(const EpochRecord& e);
Status from_wire(const nlohmann::json& j, EpochRecord* out);
nlohmann::json to_wire(const RankReport& r);
Status from_wire(const nlohmann::json& j, RankReport* out);

// Rank 0: every rank's report into result (per epoch, overall, per rank). *worst keeps the first
// error: a rank's, samples read that were not the samples planned, or corrupt samples.
void summarize_train_read(const TrainReadParams& params, const std::vector<RankReport>& ranks,
                          const DatasetLayout& layout, PhaseResult* result, Status* worst);

}  // namespace iofab
