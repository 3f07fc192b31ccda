// train_read's figures: what each rank sends rank 0 at the end of the phase
// (every epoch's stats, page-cache state and device counters), and how rank
// 0 merges them into the phase's metrics, details and warnings.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/comm/wire.h"
#include "harness/core/status.h"
#include "harness/fs/diskstats.h"
#include "harness/phase/phase.h"
#include "workloads/dataset/dataset.h"
#include "workloads/train_read/train_loader.h"
#include "workloads/train_read/train_read_phase.h"
#include "workloads/train_read/train_windows.h"

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
  std::string tier_device;  // the cache tier's (cache_dir's) block device on this rank's host; "" unknown
  uint64_t memory_bytes = 0;  // the host's, for MLPerf's minimum dataset size
  std::vector<EpochRecord> epochs;
  std::vector<EpochRecord> source_epochs;  // with a cache tier: the source-only epoch, when it ran
  WindowSplit windows;                     // in a concurrent group with windows: its figures split by them
  Status status;
  // The dataset is an object store's: read with requests over the network, no page cache or device here.
  bool objects = false;
  // An object store's request figures (wire JSON, null on files): the epochs' reads, and the dataset's
  // generation with the loader's set-up before them.
  nlohmann::json requests;
  nlohmann::json generate_requests;
  // layout files: the dataset's tree listed before the first epoch, as DLIO lists it (the startup's first
  // part; the first epoch's wait for its first batch is the rest).
  bool listed = false;
  uint64_t list_ns = 0;
  uint64_t listed_files = 0;
  // loader pytorch: the profile's counters (LoaderProfileCounters::to_json), and the native loader's
  // epoch over the same dataset beside it (the storage's ceiling; none with storage_ceiling false).
  nlohmann::json loader_profile;
  std::vector<EpochRecord> ceiling_epochs;
  // Fields an older rank may lack are optional.
  static constexpr auto wire_fields() {
    using R = RankReport;
    return std::tuple{wire_field("host", &R::host),
                      wire_field("engine", &R::engine),
                      wire_field("verified", &R::verified),
                      wire_field("device", &R::device),
                      wire_optional("tier_device", &R::tier_device),
                      wire_field("memory_bytes", &R::memory_bytes),
                      wire_field("epochs", &R::epochs),
                      wire_optional("source_epochs", &R::source_epochs),
                      wire_optional("windows", &R::windows),
                      wire_field("status", &R::status),
                      wire_optional("objects", &R::objects),
                      wire_optional("requests", &R::requests),
                      wire_optional("generate_requests", &R::generate_requests),
                      wire_optional("listed", &R::listed),
                      wire_optional("list_ns", &R::list_ns),
                      wire_optional("listed_files", &R::listed_files),
                      wire_optional("loader_profile", &R::loader_profile),
                      wire_optional("ceiling_epochs", &R::ceiling_epochs)};
  }
};

nlohmann::json to_wire(const EpochRecord& e);
Status from_wire(const nlohmann::json& j, EpochRecord* out);

// Rank 0, a files dataset: the dataset's startup (its tree listed, then the first epoch's first batch) as
// the slowest rank saw it, and what the listing found beside the files the layout has.
void summarize_dataset_startup(const std::vector<RankReport>& ranks, const DatasetLayout& layout,
                               PhaseResult* result);

// Rank 0: every rank's report into result (per epoch, overall, per rank). *worst keeps the first
// error: a rank's, samples read that were not the samples planned, or corrupt samples.
void summarize_train_read(const TrainReadParams& params, const std::vector<RankReport>& ranks,
                          const DatasetLayout& layout, PhaseResult* result, Status* worst);

// Rank 0, after summarize_train_read and summarize_cache_tier, on an object store: the epochs' requests
// (every GET, the source-only epoch's included) over the epochs' seconds, as ingest and restore report
// theirs, and the generation's requests apart in details.generate_requests. Nothing on files.
void summarize_train_requests(const std::vector<RankReport>& ranks, PhaseResult* result);

}  // namespace iofab
