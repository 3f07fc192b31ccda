#include "workloads/train_read/train_read_results.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "harness/comm/wire.h"
#include "harness/engines/engine_choice.h"
#include "harness/phase/io_details.h"
#include "harness/phase/request_metrics.h"
#include "harness/stats/io_tally.h"
#include "workloads/train_read/mlperf_rules.h"
#include "workloads/train_read/sampler.h"

namespace iofab {

using nlohmann::json;

namespace {

// Above this fraction resident at a cold epoch's start, its figures are flagged as possibly from memory.
constexpr double kColdResidentLimit = 0.05;

const char* drop_cache_name(DropCache d) {
  switch (d) {
    case DropCache::kEveryEpoch:
      return "every_epoch";
    case DropCache::kFirstEpoch:
      return "first_epoch";
    case DropCache::kNever:
      return "never";
  }
  return "every_epoch";
}

double read_ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

// Each rank's epochs in MLPerf's terms: AU, steps and the times DLIO measures between.
std::vector<std::vector<MlperfRankEpoch>> mlperf_rank_epochs(const TrainReadParams& p,
                                                             const std::vector<RankReport>& ranks,
                                                             size_t epochs) {
  std::vector<std::vector<MlperfRankEpoch>> per_epoch(epochs);
  for (size_t e = 0; e < epochs; ++e) {
    for (const auto& r : ranks) {
      const EpochStats& s = r.epochs[e].stats;
      per_epoch[e].push_back(
          {.au = s.au(),
           .steps = s.batches,
           .batch_size = p.batch_size,
           .first_step_end_s = static_cast<double>(s.first_done_ns) * 1e-9,
           .end_s = static_cast<double>(s.end_ns) * 1e-9,
           // Step 1's compute: from its batch taken (first_wait) to its compute end.
           .compute_s = static_cast<double>(s.compute_ns) * 1e-9,
           .first_compute_s =
               static_cast<double>(s.first_done_ns - std::min(s.first_done_ns, s.first_wait_ns)) * 1e-9});
    }
  }
  return per_epoch;
}

// The hosts' memory, one entry per host as MLPerf counts hosts.
struct HostsMemory {
  std::vector<uint64_t> memories;
  uint64_t total = 0;
};

HostsMemory hosts_memory(const std::vector<RankReport>& ranks) {
  std::map<std::string, uint64_t> host_memory;
  for (const auto& r : ranks) host_memory[r.host] = r.memory_bytes;
  HostsMemory h;
  for (const auto& [host, bytes] : host_memory) {
    h.memories.push_back(bytes);
    h.total += bytes;
  }
  return h;
}

// details.mlperf.min_dataset: the rule, the figures it took and whether the dataset meets it.
json mlperf_min_dataset_details(const MlperfDatasetRule& rule, size_t ranks, const HostsMemory& hosts,
                                const DatasetLayout& layout, const std::string& rule_text) {
  return {{"rule",
           "MLPerf Storage Submission_guidelines.md (minimum dataset size); mlpstorage/rules.py "
           "calculate_training_data_size"},
          {"accelerators", ranks},
          {"hosts", hosts.memories.size()},
          {"host_memory_bytes", hosts.total},
          {"steps_samples", rule.steps_samples},
          {"memory_samples", rule.memory_samples},
          {"min_samples", rule.min_samples},
          {"min_files", rule.min_files},
          {"min_bytes", rule.min_bytes},
          {"given_samples", layout.num_samples()},
          {"given_files", layout.num_files()},
          {"given_bytes", layout.sample_bytes()},
          {"met", layout.num_samples() >= rule.min_samples},
          {"text", rule_text}};
}

// MLPerf Storage's figures (DLIO's definitions) beside iofab's, and its minimum dataset size.
void summarize_mlperf(const TrainReadParams& p, const std::vector<RankReport>& ranks,
                      const DatasetLayout& layout, size_t epochs, PhaseResult* result) {
  const auto record_length = static_cast<double>(p.dataset.sample_size);
  const MlperfTrainFigures f = mlperf_train_figures(mlperf_rank_epochs(p, ranks, epochs), record_length);
  const HostsMemory hosts = hosts_memory(ranks);
  const uint64_t per_file = layout.samples_in(0);
  const MlperfDatasetRule rule =
      mlperf_min_dataset(p.batch_size, ranks.size(), hosts.memories, record_length, per_file);
  const std::string rule_text =
      describe_mlperf_min_dataset(rule, p.batch_size, ranks.size(), hosts.total, record_length,
                                  layout.num_samples(), static_cast<double>(layout.sample_bytes()));
  auto& m = result->metrics;
  m["mlperf_au"] = f.au;
  m["mlperf_samples_per_s"] = f.samples_per_s;
  m["mlperf_read_bytes_per_s"] = f.samples_per_s * record_length;
  m["mlperf_min_samples"] = static_cast<double>(rule.min_samples);
  m["mlperf_min_dataset_bytes"] = rule.min_bytes;
  m["mlperf_dataset_size_margin"] =
      read_ratio(static_cast<double>(layout.num_samples()), static_cast<double>(rule.min_samples));
  result->details["mlperf"] = {
      {"definitions",
       "au: the mean over epochs of the mean over ranks of the compute of steps 2.. / the time from step "
       "1's compute end to the last step's (metric_exclude_start_steps 1); samples_per_s: the mean "
       "over epochs of the sum over ranks of (steps - 2) x batch_size / the time from the rank's first "
       "step's end to its last's (DLIO's statscounter.py; 0 below 3 steps); mib_per_s: samples_per_s x the "
       "mean "
       "sample size (sample_size) / 2^20, DLIO's \"MB/second\". iofab's au, samples_per_s and "
       "read_bytes_per_s pool every rank's time and bytes instead"},
      {"au", f.au},
      {"samples_per_s", f.samples_per_s},
      {"mib_per_s", f.mib_per_s},
      {"min_dataset", mlperf_min_dataset_details(rule, ranks.size(), hosts, layout, rule_text)}};
  if (p.mlperf && layout.num_samples() < rule.min_samples) {
    result->warnings.push_back(
        "MLPerf's minimum dataset size (Submission_guidelines.md; mlpstorage's calculate_training_data_size) "
        "is not met, so this is no valid "
        "MLPerf Storage run: " +
        rule_text);
  }
}

}  // namespace

json to_wire(const EpochRecord& e) {
  return {{"epoch", e.epoch},
          {"ok", e.ok},
          {"stats", e.stats.to_wire()},
          {"cache",
           {{"files", e.cache.files},
            {"bytes", e.cache.bytes},
            {"resident_bytes", e.cache.resident_bytes},
            {"drop", e.drop},
            {"drop_error", e.cache.drop_error}}},
          {"planned_count", e.planned_count},
          {"planned_sum", e.planned_sum},
          {"disk",
           e.disk_seen ? json{{"read_bytes", e.disk.read_bytes}, {"reads", e.disk.reads}} : json(nullptr)},
          {"tier",
           {{"files", e.tier.files},
            {"bytes", e.tier.bytes},
            {"resident_bytes", e.tier.resident_bytes},
            {"drop_error", e.tier.drop_error}}},
          {"tier_disk", e.tier_disk_seen
                            ? json{{"read_bytes", e.tier_disk.read_bytes}, {"reads", e.tier_disk.reads}}
                            : json(nullptr)}};
}

Status from_wire(const json& j, EpochRecord* out) {
  WireReader r(j);
  r.field("epoch", &out->epoch).field("ok", &out->ok).field("stats", &out->stats);
  r.field("planned_count", &out->planned_count).field("planned_sum", &out->planned_sum);
  json cache, disk, tier, tier_disk;
  r.field("cache", &cache).optional("disk", &disk).optional("tier", &tier).optional("tier_disk", &tier_disk);
  if (!r.status().ok()) return r.status();
  WireReader c(cache);
  c.field("files", &out->cache.files).field("bytes", &out->cache.bytes);
  c.field("resident_bytes", &out->cache.resident_bytes).field("drop", &out->drop);
  c.field("drop_error", &out->cache.drop_error);
  if (!c.status().ok()) return Status::Internal("cache: " + c.status().message());
  if (!tier.is_null()) {
    WireReader t(tier);
    t.field("files", &out->tier.files).field("bytes", &out->tier.bytes);
    t.field("resident_bytes", &out->tier.resident_bytes).field("drop_error", &out->tier.drop_error);
    if (!t.status().ok()) return Status::Internal("tier: " + t.status().message());
  }
  out->tier_disk_seen = !tier_disk.is_null();
  if (out->tier_disk_seen) {
    WireReader t(tier_disk);
    t.field("read_bytes", &out->tier_disk.read_bytes).field("reads", &out->tier_disk.reads);
    if (!t.status().ok()) return Status::Internal("tier_disk: " + t.status().message());
  }
  out->disk_seen = !disk.is_null();
  if (!out->disk_seen) return Status::Ok();
  WireReader d(disk);
  d.field("read_bytes", &out->disk.read_bytes).field("reads", &out->disk.reads);
  return d.status().ok() ? Status::Ok() : Status::Internal("disk: " + d.status().message());
}

namespace {

// One epoch over every rank: the figures merged, and what its records say of the cache, the device and
// the plan.
struct EpochMerge {
  explicit EpochMerge(uint64_t interval_ns) : sum(interval_ns) {}
  EpochStats sum;
  double resident = 0, cached = 0, au_min = 1.0;
  uint64_t device = 0, planned_count = 0, planned_sum = 0;
  bool device_seen = false, ok = true, drop = false;
  std::string drop_error;
};

// Every epoch together, and each rank's share over the epochs.
struct TrainTotals {
  TrainTotals(uint64_t interval_ns, size_t ranks)
      : total(interval_ns),
        rank_samples(ranks, 0),
        rank_bytes(ranks, 0),
        rank_compute(ranks, 0),
        rank_wall(ranks, 0) {}
  EpochStats total;
  double read_seconds = 0, au_min = 1.0, resident = 0, cached_bytes = 0;
  bool au_min_seen = false, device_seen = false, every_once = true;
  uint64_t device_bytes = 0, first_wait_max = 0;
  json per_epoch = json::array();
  std::vector<double> rank_samples, rank_bytes, rank_compute, rank_wall;
};

EpochMerge merge_epoch(const std::vector<RankReport>& ranks, size_t e, uint64_t interval_ns, TrainTotals* t) {
  EpochMerge m(interval_ns);
  for (size_t r = 0; r < ranks.size(); ++r) {
    const EpochRecord& rec = ranks[r].epochs[e];
    const EpochStats& s = rec.stats;
    m.sum.merge(s);
    if (s.wall_ns > 0) m.au_min = std::min(m.au_min, s.au());
    t->rank_samples[r] += static_cast<double>(s.reads.ios);
    t->rank_bytes[r] += static_cast<double>(s.reads.bytes);
    t->rank_compute[r] += static_cast<double>(s.compute_ns);
    t->rank_wall[r] += static_cast<double>(s.wall_ns);
    m.ok = m.ok && rec.ok;
    m.resident += static_cast<double>(rec.cache.resident_bytes);
    m.cached += static_cast<double>(rec.cache.bytes);
    m.drop = m.drop || rec.drop;
    if (m.drop_error.empty()) m.drop_error = rec.cache.drop_error;
    m.planned_count += rec.planned_count;
    m.planned_sum += rec.planned_sum;
    if (rec.disk_seen) {
      m.device += rec.disk.read_bytes;
      m.device_seen = true;
    }
  }
  return m;
}

// details.epochs[e]. n and all_sum: the dataset's samples and the sum of their fingerprints.
json epoch_json(size_t e, const EpochMerge& m, uint64_t n, uint64_t all_sum) {
  const EpochStats& sum = m.sum;
  const double seconds = static_cast<double>(sum.end_ns) * 1e-9;
  json ej = {
      {"epoch", e},
      {"complete", m.ok},
      {"seconds", seconds},
      {"samples", sum.reads.ios},
      {"read_bytes", sum.reads.bytes},
      {"io_bytes", sum.io_bytes},
      {"samples_per_s", read_ratio(static_cast<double>(sum.reads.ios), seconds)},
      {"read_bytes_per_s", read_ratio(static_cast<double>(sum.reads.bytes), seconds)},
      {"batches", sum.batches},
      {"au", sum.au()},
      {"au_min", m.au_min},
      {"batch_wait_fraction", read_ratio(static_cast<double>(sum.wait_ns), static_cast<double>(sum.wall_ns))},
      {"first_batch_wait_s", static_cast<double>(sum.first_wait_ns) * 1e-9},
      {"compute_s", static_cast<double>(sum.compute_ns) * 1e-9},
      {"sample_latency", latency_summary_json(sum.reads.latency)},
      {"batch_wait", latency_summary_json(sum.batch_wait)},
      {"series", sum.reads.series.to_json()},
      {"cache_resident_fraction", read_ratio(m.resident, m.cached)},
      {"cache_dropped", m.drop},
      {"cache_drop_error", m.drop_error},
      {"device_read_bytes", m.device_seen ? json(m.device) : json(nullptr)},
      {"dropped_samples", sum.dropped_samples},
      {"corrupt_samples", sum.corrupt},
      {"sample_ids",
       {{"read", sum.id_count},
        {"fingerprint_sum", sum.id_sum},
        {"planned", m.planned_count},
        {"planned_fingerprint_sum", m.planned_sum},
        {"dataset", n},
        {"dataset_fingerprint_sum", all_sum},
        {"every_planned_sample_once", sum.id_count == m.planned_count && sum.id_sum == m.planned_sum},
        {"every_sample_once", sum.id_count == n && sum.id_sum == all_sum}}}};
  if (sum.gpu_bytes > 0) {
    ej["gpu_copy_bytes"] = sum.gpu_bytes;
    ej["gpu_copy_s"] = static_cast<double>(sum.gpu_ns) * 1e-9;
  }
  return ej;
}

// The epoch into the totals; its error (samples read that were not the samples planned) and its warning
// (meant to be cold, but the page cache held the dataset).
void add_epoch(size_t e, const EpochMerge& m, bool once, TrainTotals* t, PhaseResult* result, Status* worst) {
  const EpochStats& sum = m.sum;
  t->total.merge(sum);
  t->read_seconds += static_cast<double>(sum.end_ns) * 1e-9;
  if (sum.wall_ns > 0) {
    t->au_min = std::min(t->au_min, m.au_min);
    t->au_min_seen = true;
  }
  t->resident += m.resident;
  t->cached_bytes += m.cached;
  t->device_bytes += m.device;
  t->device_seen = t->device_seen || m.device_seen;
  t->every_once = t->every_once && once;
  t->first_wait_max = std::max(t->first_wait_max, sum.first_wait_ns);
  const bool planned_once = sum.id_count == m.planned_count && sum.id_sum == m.planned_sum;
  if (m.ok && !planned_once && worst->ok()) {
    *worst =
        Status::Internal("epoch " + std::to_string(e) + ": the samples read are not the samples planned");
  }
  const double resident_fraction = read_ratio(m.resident, m.cached);
  if (m.drop && (!m.drop_error.empty() || resident_fraction > kColdResidentLimit)) {
    result->warnings.push_back("epoch " + std::to_string(e) + " was meant to be cold, but " +
                               std::to_string(static_cast<int>(std::lround(resident_fraction * 100))) +
                               "% of the dataset was in the page cache at its start (" +
                               (m.drop_error.empty()
                                    ? std::string("the drop was accepted but the pages stayed, as on tmpfs")
                                    : "the drop was refused: " + m.drop_error) +
                               "): its figures may come from memory");
  }
}

void put_train_metrics(const TrainTotals& t, const std::vector<RankReport>& ranks, size_t epochs,
                       PhaseResult* result) {
  const EpochStats& total = t.total;
  auto& m = result->metrics;
  m["samples_per_s"] = read_ratio(static_cast<double>(total.reads.ios), t.read_seconds);
  m["read_bytes_per_s"] = read_ratio(static_cast<double>(total.reads.bytes), t.read_seconds);
  m["au"] = total.au();
  m["au_min"] = t.au_min_seen ? t.au_min : 0.0;
  m["batch_wait_fraction"] =
      read_ratio(static_cast<double>(total.wait_ns), static_cast<double>(total.wall_ns));
  put_latency_metrics(total.reads.latency, "sample_latency_", LatencyMetrics::kFull, &m);
  m["cache_resident_fraction"] = read_ratio(t.resident, t.cached_bytes);
  if (t.device_seen) {
    m["device_read_bytes"] = static_cast<double>(t.device_bytes);
    m["device_read_ratio"] =
        read_ratio(static_cast<double>(t.device_bytes), static_cast<double>(total.reads.bytes));
  }
  m["read_seconds"] = t.read_seconds;
  m["samples"] = static_cast<double>(total.reads.ios);
  m["read_bytes"] = static_cast<double>(total.reads.bytes);
  // What the dataset's storage served; a cache tier (summarize_cache_tier) takes its share out.
  m["dataset_read_bytes"] = static_cast<double>(total.reads.bytes);
  m["epochs"] = static_cast<double>(epochs);
  m["first_batch_wait_s"] = static_cast<double>(t.first_wait_max) * 1e-9;
  // An engine that moves no data (null) verifies nothing: the count is not measured, so not reported as 0.
  if (!ranks.empty() && ranks[0].verified) m["corrupt_samples"] = static_cast<double>(total.corrupt);
}

void put_train_details(const TrainReadParams& p, const std::vector<RankReport>& ranks, size_t epochs,
                       const TrainTotals& t, PhaseResult* result, Status* worst) {
  const EpochStats& total = t.total;
  const json& per_epoch = t.per_epoch;
  const bool every_once = t.every_once;
  const bool device_seen = t.device_seen;
  const std::vector<double>& rank_samples = t.rank_samples;
  const std::vector<double>& rank_bytes = t.rank_bytes;
  const std::vector<double>& rank_compute = t.rank_compute;
  const std::vector<double>& rank_wall = t.rank_wall;
  auto& d = result->details;
  d["engine"] = ranks.empty() ? "" : ranks[0].engine;
  if (const auto mode = engine_mode_text(d["engine"].get<std::string>())) d["engine_mode"] = *mode;
  d["verified"] = !ranks.empty() && ranks[0].verified;
  d["direct"] = p.direct;
  d["drop_cache"] = drop_cache_name(p.drop_cache);
  d["epochs"] = per_epoch;
  d["every_sample_once"] = every_once && epochs > 0;
  d["sample_latency"] = latency_summary_json(total.reads.latency);
  d["sample_latency_histogram"] = total.reads.latency.to_json();
  d["batch_wait"] = latency_summary_json(total.batch_wait);
  d["io_bytes"] = total.io_bytes;
  const std::string device = ranks.empty() ? std::string() : ranks[0].device;
  d["device"] = device.empty() ? json(nullptr) : json(device);
  const bool objects = !ranks.empty() && ranks[0].objects;
  if (objects) {
    d["page_cache"] =
        "none: the dataset is an object store's, read with requests over the network; there is no page "
        "cache here to drop (drop_cache applies to a cache_dir only) or to count (cache_resident_fraction "
        "0), and no block device (the requests' own figures are in requests and details.requests)";
  } else if (!device_seen) {
    result->warnings.push_back(
        "device_read_bytes not measured: the dataset's filesystem has no block device in /proc/diskstats "
        "(tmpfs, or a network or parallel filesystem)");
  }
  json per_rank = json::array();
  for (size_t r = 0; r < ranks.size(); ++r) {
    per_rank.push_back({{"rank", r},
                        {"host", ranks[r].host},
                        {"samples", rank_samples[r]},
                        {"read_bytes", rank_bytes[r]},
                        {"au", read_ratio(rank_compute[r], rank_wall[r])},
                        {"error", ranks[r].status.ok() ? "" : ranks[r].status.message()}});
    if (worst->ok() && !ranks[r].status.ok() && !ranks[r].status.message().empty()) *worst = ranks[r].status;
  }
  d["per_rank"] = per_rank;
  if (total.corrupt > 0 && worst->ok()) {
    *worst =
        Status::IoError(std::to_string(total.corrupt) +
                        " samples were read back with a header naming another sample: the data path returned "
                        "wrong bytes");
  }
  // A loader never made (its engine failed to open the files) read nothing: the phase's error says why.
  if (!d["verified"].get<bool>() && !d["engine"].get<std::string>().empty()) {
    result->warnings.push_back(
        "engine " + d["engine"].get<std::string>() +
        " moves no data: figures measure the loader, not the storage, and samples are not "
        "verified (corrupt_samples is not measured)");
  }
}

}  // namespace

void summarize_train_read(const TrainReadParams& p, const std::vector<RankReport>& ranks,
                          const DatasetLayout& layout, PhaseResult* result, Status* worst) {
  size_t epochs = SIZE_MAX;
  for (const auto& r : ranks) epochs = std::min(epochs, r.epochs.size());
  if (epochs == SIZE_MAX) epochs = 0;
  const uint64_t n = layout.num_samples();
  const uint64_t all_sum = fingerprint_sum(n);
  TrainTotals t(p.series_interval_ns, ranks.size());
  for (size_t e = 0; e < epochs; ++e) {
    const EpochMerge m = merge_epoch(ranks, e, p.series_interval_ns, &t);
    t.per_epoch.push_back(epoch_json(e, m, n, all_sum));
    add_epoch(e, m, m.sum.id_count == n && m.sum.id_sum == all_sum, &t, result, worst);
  }
  put_train_metrics(t, ranks, epochs, result);
  summarize_mlperf(p, ranks, layout, epochs, result);
  put_train_details(p, ranks, epochs, t, result, worst);
}

void summarize_dataset_startup(const std::vector<RankReport>& ranks, const DatasetLayout& layout,
                               PhaseResult* result) {
  uint64_t list_ns = 0, startup_ns = 0;
  bool listed = !ranks.empty();
  for (const auto& r : ranks) {
    listed = listed && r.listed;
    list_ns = std::max(list_ns, r.list_ns);
    const uint64_t first_batch = r.epochs.empty() ? 0 : r.epochs.front().stats.first_wait_ns;
    startup_ns = std::max(startup_ns, r.list_ns + first_batch);
  }
  if (!listed) return;
  result->metrics["dataset_list_seconds"] = static_cast<double>(list_ns) * 1e-9;
  if (!ranks.front().epochs.empty())
    result->metrics["dataset_startup_seconds"] = static_cast<double>(startup_ns) * 1e-9;
  result->details["dataset_startup"] = {{"listed_files", ranks.front().listed_files},
                                        {"layout_files", layout.num_files()},
                                        {"list_seconds_slowest_rank", static_cast<double>(list_ns) * 1e-9}};
  if (ranks.front().listed_files != layout.num_files()) {
    result->warnings.push_back("the dataset's folders hold " + std::to_string(ranks.front().listed_files) +
                               " files where the layout has " + std::to_string(layout.num_files()) +
                               ": the listing's time covers them all");
  }
}

void summarize_train_requests(const std::vector<RankReport>& ranks, PhaseResult* result) {
  std::vector<json> reads, generation;
  for (const auto& r : ranks) {
    reads.push_back(r.requests);
    generation.push_back(r.generate_requests);
  }
  RequestStats req;
  if (!merge_request_stats(reads, &req)) return;
  double seconds = result->metrics["read_seconds"];
  const json& tier = result->details.value("cache_tier", json::object());
  if (tier.is_object() && tier.contains("source_epoch") && tier["source_epoch"].is_object()) {
    seconds += tier["source_epoch"].value("seconds", 0.0);
  }
  put_request_metrics(req, seconds, result);
  RequestStats gen;
  if (merge_request_stats(generation, &gen)) {
    uint64_t errors = 0;
    for (const auto& [code, n] : gen.errors_by_status) errors += n;
    result->details["generate_requests"] = {{"requests", gen.requests},
                                            {"retries", gen.retries},
                                            {"request_errors", errors},
                                            {"retried_by_status", gen.retried_by_status},
                                            {"errors_by_status", gen.errors_by_status},
                                            {"bytes_sent", gen.bytes_sent},
                                            {"bytes_received", gen.bytes_received}};
  }
}

}  // namespace iofab
