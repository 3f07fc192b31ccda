#include "workloads/train_read/train_cache_results.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "harness/core/units.h"
#include "harness/stats/io_tally.h"
#include "workloads/train_read/train_cache.h"

namespace iofab {

using nlohmann::json;

namespace {

// Above this fraction of the cache resident at a cold epoch's start, its figures are flagged as from memory.
constexpr double kCacheColdResidentLimit = 0.05;

double cache_ratio(double a, double b) { return b > 0 ? a / b : 0.0; }
double dbl(uint64_t v) { return static_cast<double>(v); }

// One epoch's records of every rank, merged.
struct Merged {
  explicit Merged(uint64_t interval_ns) : stats(interval_ns) {}
  EpochStats stats;
  CacheCounts tier;
  uint64_t tier_disk = 0;
  bool tier_disk_seen = false;
  uint64_t disk = 0;
  bool disk_seen = false;
  uint64_t planned_count = 0;
  uint64_t planned_sum = 0;
  bool drop = false;
  bool ok = true;
};

Merged merge(const std::vector<RankReport>& ranks, bool source, size_t e, uint64_t interval_ns) {
  Merged m(interval_ns);
  for (const auto& r : ranks) {
    const EpochRecord& rec = source ? r.source_epochs[e] : r.epochs[e];
    m.stats.merge(rec.stats);
    m.tier.files += rec.tier.files;
    m.tier.bytes += rec.tier.bytes;
    m.tier.resident_bytes += rec.tier.resident_bytes;
    if (m.tier.drop_error.empty()) m.tier.drop_error = rec.tier.drop_error;
    if (rec.tier_disk_seen) {
      m.tier_disk += rec.tier_disk.read_bytes;
      m.tier_disk_seen = true;
    }
    if (rec.disk_seen) {
      m.disk += rec.disk.read_bytes;
      m.disk_seen = true;
    }
    m.planned_count += rec.planned_count;
    m.planned_sum += rec.planned_sum;
    m.drop = m.drop || rec.drop;
    m.ok = m.ok && rec.ok;
  }
  return m;
}

}  // namespace

json tier_devices(const std::vector<RankReport>& ranks) {
  json out = json::array();
  std::set<std::string> seen;
  for (const auto& r : ranks) {
    if (!seen.insert(r.host).second) continue;
    const json device = r.tier_device.empty() ? json(nullptr) : json(r.tier_device);
    out.push_back({{"host", r.host}, {"device", device}});
  }
  return out;
}

namespace {

// The epochs every rank recorded (the fewest any rank has), and the source-only epochs likewise.
struct EpochCounts {
  size_t epochs = 0, source_epochs = 0;
};

EpochCounts common_epochs(const std::vector<RankReport>& ranks) {
  size_t epochs = SIZE_MAX, source_epochs = SIZE_MAX;
  for (const auto& r : ranks) {
    epochs = std::min(epochs, r.epochs.size());
    source_epochs = std::min(source_epochs, r.source_epochs.size());
  }
  return {.epochs = epochs == SIZE_MAX ? 0 : epochs,
          .source_epochs = source_epochs == SIZE_MAX ? 0 : source_epochs};
}

// The regular epochs, pooled: all of them, and epochs 1 and later (read through a filled cache).
struct TierEpochs {
  explicit TierEpochs(uint64_t interval_ns) : all(interval_ns), later(interval_ns) {}
  EpochStats all, later;
  double au_first = 0;
  uint64_t first_unfilled = 0;
};

json epoch_tier_json(const Merged& ep, size_t e) {
  const EpochStats& s = ep.stats;
  return {{"source_bytes", s.source_bytes},
          {"cache_bytes", s.cache_bytes},
          {"cache_samples", s.cache_samples},
          {"source_samples", s.reads.ios - std::min(s.reads.ios, s.cache_samples)},
          {"hit_fraction", cache_ratio(dbl(s.cache_samples), dbl(s.reads.ios))},
          {"filled_samples", s.filled_samples},
          {"filled_bytes", s.filled_bytes},
          {"unfilled_samples", s.unfilled_samples},
          {"fill_s", dbl(s.fill_ns) * 1e-9},
          {"cached_files", ep.tier.files},
          {"resident_fraction", cache_ratio(dbl(ep.tier.resident_bytes), dbl(ep.tier.bytes))},
          {"dropped", ep.drop && e > 0},
          {"drop_error", ep.tier.drop_error},
          {"device_read_bytes", ep.tier_disk_seen ? json(ep.tier_disk) : json(nullptr)}};
}

// A later epoch meant to be cold whose cache tier was in memory at its start: its figures are memory's.
void warn_warm_tier(const Merged& ep, size_t e, PhaseResult* result) {
  const double tier_resident = cache_ratio(dbl(ep.tier.resident_bytes), dbl(ep.tier.bytes));
  if (e == 0 || !ep.drop || ep.tier.bytes == 0 ||
      (ep.tier.drop_error.empty() && tier_resident <= kCacheColdResidentLimit)) {
    return;
  }
  result->warnings.push_back("epoch " + std::to_string(e) + " was meant to be cold, but " +
                             std::to_string(static_cast<int>(std::lround(tier_resident * 100))) +
                             "% of the cache tier was in the page cache at its start (" +
                             (ep.tier.drop_error.empty()
                                  ? std::string("the drop was accepted but the pages stayed, as on tmpfs")
                                  : "the drop was refused: " + ep.tier.drop_error) +
                             "): its cache reads may come from memory, not the cache's device");
}

// Every regular epoch: its cache_tier details, its warning, and its share of the pooled figures.
TierEpochs tier_epochs(const TrainReadParams& p, const std::vector<RankReport>& ranks, size_t epochs,
                       PhaseResult* result) {
  TierEpochs t(p.series_interval_ns);
  auto& d = result->details;
  for (size_t e = 0; e < epochs; ++e) {
    const Merged ep = merge(ranks, false, e, p.series_interval_ns);
    if (d.contains("epochs") && e < d["epochs"].size()) d["epochs"][e]["cache_tier"] = epoch_tier_json(ep, e);
    warn_warm_tier(ep, e, result);
    t.all.merge(ep.stats);
    if (e == 0) {
      t.au_first = ep.stats.au();
      t.first_unfilled = ep.stats.unfilled_samples;
    } else {
      t.later.merge(ep.stats);
    }
  }
  return t;
}

json tier_summary(const TrainReadParams& p, const DatasetLayout& layout, const TierEpochs& t, size_t epochs) {
  const bool cached = epochs >= 2;
  return {{"cache_size", p.cache_size == 0 ? json(nullptr) : json(p.cache_size)},
          {"dataset_cached_bytes", cached_dataset_bytes(layout)},
          {"filled_samples", t.all.filled_samples},
          {"filled_bytes", t.all.filled_bytes},
          {"unfilled_samples", t.all.unfilled_samples},
          {"fill_s", dbl(t.all.fill_ns) * 1e-9},
          {"source_read_bytes", t.all.source_bytes},
          {"cache_read_bytes", t.all.cache_bytes},
          {"au_first_epoch", t.au_first},
          {"au_cached", cached ? json(t.later.au()) : json(nullptr)},
          {"cache_hit_fraction",
           cached ? json(cache_ratio(dbl(t.later.cache_samples), dbl(t.later.reads.ios))) : json(nullptr)},
          {"source_epoch_requested", p.cache_source_epoch},
          {"definitions",
           "au_first_epoch: epoch 0, read from the source while filling the cache (the writes are part "
           "of it); au_cached: epochs 1 and later, pooled, read from the cache where it holds a sample "
           "and from the source where not; au_source_only: one extra epoch after them, a fresh "
           "permutation read from the source alone with the cache out of the path, cold unless "
           "drop_cache is never"}};
}

void warn_tier_full(const TrainReadParams& p, const DatasetLayout& layout, const TierEpochs& t, size_t epochs,
                    PhaseResult* result) {
  if (t.all.unfilled_samples == 0) return;
  const double hit = cache_ratio(dbl(t.later.cache_samples), dbl(t.later.reads.ios));
  result->warnings.push_back(
      "the cache tier filled up: it held " + std::to_string(t.all.filled_samples) + " of the dataset's " +
      std::to_string(layout.num_samples()) + " samples (cache_size " +
      units::format_bytes(static_cast<double>(p.cache_size)) + " per host), and epoch 0 read " +
      std::to_string(t.first_unfilled) + " samples it had no room for" +
      (epochs >= 2 ? "; later epochs served " + std::to_string(static_cast<int>(std::lround(hit * 100))) +
                         "% of their samples from it and read the rest from the source"
                   : ""));
}

// The source-only epoch (the cache out of the path): its figures, au_source_only, and a wrong sample or
// a sample read twice as the phase's error. Its read bytes.
uint64_t source_only_epoch(const TrainReadParams& p, const std::vector<RankReport>& ranks, json* tier,
                           PhaseResult* result, Status* worst) {
  const Merged se = merge(ranks, true, 0, p.series_interval_ns);
  const EpochStats& s = se.stats;
  const double seconds = dbl(s.end_ns) * 1e-9;
  const bool planned_once = s.id_count == se.planned_count && s.id_sum == se.planned_sum;
  result->metrics["au_source_only"] = s.au();
  (*tier)["source_epoch"] = {{"epoch", p.epochs},
                             {"complete", se.ok},
                             {"seconds", seconds},
                             {"samples", s.reads.ios},
                             {"read_bytes", s.reads.bytes},
                             {"source_bytes", s.source_bytes},
                             {"cache_bytes", s.cache_bytes},
                             {"samples_per_s", cache_ratio(dbl(s.reads.ios), seconds)},
                             {"read_bytes_per_s", cache_ratio(dbl(s.reads.bytes), seconds)},
                             {"au", s.au()},
                             {"batch_wait_fraction", cache_ratio(dbl(s.wait_ns), dbl(s.wall_ns))},
                             {"first_batch_wait_s", dbl(s.first_wait_ns) * 1e-9},
                             {"sample_latency", latency_summary_json(s.reads.latency)},
                             {"cache_dropped", se.drop},
                             {"device_read_bytes", se.disk_seen ? json(se.disk) : json(nullptr)},
                             {"corrupt_samples", s.corrupt},
                             {"every_planned_sample_once", planned_once}};
  if (se.ok && !planned_once && worst->ok()) {
    *worst = Status::Internal("the source-only epoch: the samples read are not the samples planned");
  }
  if (s.corrupt > 0 && worst->ok()) {
    *worst = Status::IoError(std::to_string(s.corrupt) +
                             " samples of the source-only epoch were read back with a header naming another "
                             "sample: the data path returned wrong bytes");
  }
  return s.reads.bytes;
}

}  // namespace

void summarize_cache_tier(const TrainReadParams& p, const std::vector<RankReport>& ranks,
                          const DatasetLayout& layout, PhaseResult* result, Status* worst) {
  const EpochCounts n = common_epochs(ranks);
  const TierEpochs t = tier_epochs(p, ranks, n.epochs, result);
  auto& m = result->metrics;
  m["source_read_bytes"] = dbl(t.all.source_bytes);
  m["cache_read_bytes"] = dbl(t.all.cache_bytes);
  m["cache_fill_bytes"] = dbl(t.all.filled_bytes);
  m["cache_fill_seconds"] = dbl(t.all.fill_ns) * 1e-9;
  m["au_first_epoch"] = t.au_first;
  if (n.epochs >= 2) {
    m["cache_hit_fraction"] = cache_ratio(dbl(t.later.cache_samples), dbl(t.later.reads.ios));
    m["au_cached"] = t.later.au();
  }
  json tier = tier_summary(p, layout, t, n.epochs);
  warn_tier_full(p, layout, t, n.epochs, result);
  uint64_t source_only_bytes = 0;
  if (n.source_epochs >= 1) {
    source_only_bytes = source_only_epoch(p, ranks, &tier, result, worst);
  } else {
    tier["source_epoch"] = nullptr;
  }
  m["dataset_read_bytes"] = dbl(t.all.source_bytes + source_only_bytes);
  result->details["cache_tier"] = std::move(tier);
}

}  // namespace iofab
