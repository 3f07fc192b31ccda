#include "workloads/train_read/train_epochs.h"

#include <algorithm>
#include <vector>

#include "harness/comm/agree.h"
#include "harness/comm/rank_gather.h"
#include "harness/engines/io_driver.h"
#include "harness/fs/diskstats.h"
#include "workloads/train_read/sampler.h"

namespace iofab {
namespace {

// Following a group's clock: goes on only while the clock phase runs on every rank, so all ranks run the
// same epochs (each epoch ends in collective calls).
Status agree_clock_running(Comm& comm, const std::atomic<bool>& until, bool* running) {
  std::vector<double> ended;
  Status s = comm.all_gather(until.load() ? 1.0 : 0.0, &ended);
  *running = s.ok() && std::all_of(ended.begin(), ended.end(), [](double e) { return e == 0; });
  return s;
}

}  // namespace

TrainEpochs::TrainEpochs(const TrainReadParams& p, PhaseContext& ctx, const EpochReaders& readers,
                         PhaseResult* result, uint64_t start_ns)
    : p_(p),
      ctx_(ctx),
      comm_(ctx.comm),
      rank_(ctx.comm.rank()),
      r_(readers),
      result_(result),
      window_end_ns_(start_ns) {}

Status TrainEpochs::run(RankReport* local) {
  const bool follows = ctx_.until != nullptr;
  const uint64_t last = p_.epochs + (p_.cache_source_epoch && r_.cache_tier != nullptr && !follows ? 1 : 0);
  Status st;
  for (uint64_t epoch = 0; st.ok() && (follows || epoch < last); ++epoch) {
    if (follows && epoch > 0) {
      bool clock_running = false;
      st = agree_clock_running(comm_, *ctx_.until, &clock_running);
      if (!st.ok() || !clock_running) break;
    }
    st = run_epoch(epoch, !follows && epoch == p_.epochs, local);
  }
  return st;
}

Status TrainEpochs::run_epoch(uint64_t epoch, bool source_only, RankReport* local) {
  const TrainDataset& ds = *r_.dataset;
  if (source_only) r_.loader->use_cache(nullptr);
  // Untimed: drop the pages meant to be cold, measure what is resident, draw the plan. The source-only
  // epoch measures the source as epoch 0 did: cold unless the suite never drops.
  const bool drop = source_only ? p_.drop_cache != DropCache::kNever : drop_before(epoch);
  CacheCounts cache;
  Status mine = dataset_cache_pass(*ds.store(), ds.data(), ds.layout(), static_cast<uint64_t>(r_.where.rank),
                                   static_cast<uint64_t>(r_.where.size), drop, &cache);
  CacheCounts tier;
  if (mine.ok() && r_.cache_tier != nullptr && !source_only) mine = r_.cache_tier->cache_pass(drop, &tier);
  const BatchPlan plan =
      plan_ordered_epoch(r_.order, epoch, rank_, comm_.size(), p_.batch_size, p_.drop_last);
  uint64_t planned_sum = 0;
  for (uint32_t s : plan.samples) planned_sum += sample_fingerprint(s);
  if (mine.ok() && ctx_.stop.load()) mine = Status::Interrupted();
  Status st = agree(comm_, mine);
  if (!st.ok()) return st;

  const auto disk0 = r_.reads_disk ? read_disk_counters(r_.device) : std::nullopt;
  const auto tier0 = r_.reads_cache_disk ? read_disk_counters(r_.cache_device) : std::nullopt;
  if (st = comm_.barrier(); !st.ok()) return st;
  EpochStats stats(p_.series_interval_ns);
  // Before the first epoch: the dataset generated (generate_seconds) or checked, the loader made, the
  // tree listed; before each: its cache pass and plan.
  const uint64_t t0 = now_ns();
  add_setup(result_, window_end_ns_, t0);
  Status rs = r_.profile != nullptr
                  ? r_.profile->run_epoch(plan, t0, ctx_.stop, &ctx_.progress.done_bytes, &stats)
                  : r_.loader->run_epoch(plan, t0, ctx_.stop, &ctx_.progress.done_bytes, &stats);
  window_end_ns_ = now_ns();
  const auto disk1 = r_.reads_disk ? read_disk_counters(r_.device) : std::nullopt;
  const auto tier1 = r_.reads_cache_disk ? read_disk_counters(r_.cache_device) : std::nullopt;

  EpochRecord& rec = (source_only ? local->source_epochs : local->epochs).emplace_back();
  rec.epoch = epoch;
  rec.ok = rs.ok();
  rec.stats = std::move(stats);
  rec.cache = std::move(cache);
  rec.drop = drop;
  rec.planned_count = plan.samples.size();
  rec.planned_sum = planned_sum;
  rec.disk_seen = disk0 && disk1;
  if (rec.disk_seen) rec.disk = *disk1 - *disk0;
  rec.tier = std::move(tier);
  rec.tier_disk_seen = tier0 && tier1;
  if (rec.tier_disk_seen) rec.tier_disk = *tier1 - *tier0;
  return agree(comm_, rs);
}

Status TrainEpochs::run_ceiling(RankReport* local) {
  const TrainDataset& ds = *r_.dataset;
  const bool drop = p_.drop_cache != DropCache::kNever;
  CacheCounts cache;
  Status mine = dataset_cache_pass(*ds.store(), ds.data(), ds.layout(), static_cast<uint64_t>(r_.where.rank),
                                   static_cast<uint64_t>(r_.where.size), drop, &cache);
  const BatchPlan plan = plan_ordered_epoch(r_.order, 0, rank_, comm_.size(), p_.batch_size, p_.drop_last);
  if (mine.ok() && ctx_.stop.load()) mine = Status::Interrupted();
  Status st = agree(comm_, mine);
  if (st.ok()) st = comm_.barrier();
  if (!st.ok()) return st;
  EpochStats stats(p_.series_interval_ns);
  Status rs = r_.loader->run_epoch(plan, now_ns(), ctx_.stop, &ctx_.progress.done_bytes, &stats);
  EpochRecord& rec = local->ceiling_epochs.emplace_back();
  rec.ok = rs.ok();
  rec.stats = std::move(stats);
  rec.cache = std::move(cache);
  rec.drop = drop;
  rec.planned_count = plan.samples.size();
  return agree(comm_, rs);
}

}  // namespace iofab
