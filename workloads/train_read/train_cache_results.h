// train_read's cache-tier figures (cache_dir): per epoch where the samples came from (source or cache)
// and what was cached, the AU of the epochs the cache served beside the AU of an epoch read from the
// source alone, and the warnings that keep a cache's figures honest (a cache too small, a cache whose
// pages stayed in memory).
#pragma once

#include <vector>

#include "harness/core/status.h"
#include "harness/phase/phase.h"
#include "workloads/dataset/dataset.h"
#include "workloads/train_read/train_read_results.h"

namespace iofab {

// Each host's cache tier device, once a host, in rank order: [{"host", "device" (null: unknown)}]. A
// cache_dir is node-local: rank 0's device says nothing of the other hosts' disks.
nlohmann::json tier_devices(const std::vector<RankReport>& ranks);

// Rank 0, after summarize_train_read (whose details.epochs it adds to): the cache tier's metrics, each
// epoch's `cache_tier` object and details.cache_tier. *worst keeps the first error, as there.
void summarize_cache_tier(const TrainReadParams& params, const std::vector<RankReport>& ranks,
                          const DatasetLayout& layout, PhaseResult* result, Status* worst);

}  // namespace iofab
