#include "workloads/train_read/train_read_phase.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <random>

#include "harness/comm/agree.h"
#include "harness/comm/local_rank.h"
#include "harness/comm/rank_gather.h"
#include "harness/core/units.h"
#include "harness/engines/engine.h"
#include "harness/engines/io_pump.h"
#include "harness/fs/diskstats.h"
#include "harness/fs/path_kind.h"
#include "harness/fs/read_only_mount.h"
#include "harness/fs/target.h"
#include "harness/gpu/batch_copy.h"
#include "harness/phase/io_params.h"
#include "harness/phase/metric_rows.h"
#include "harness/phase/params.h"
#include "harness/phase/reducibility_params.h"
#include "harness/phase/request_metrics.h"
#include "harness/stats/io_tally.h"
#include "harness/store/posix_store.h"
#include "workloads/dataset/dataset_manifest.h"
#include "workloads/dataset/dataset_params.h"
#include "workloads/train_read/sampler.h"
#include "workloads/train_read/train_cache.h"
#include "workloads/train_read/train_cache_params.h"
#include "workloads/train_read/train_cache_results.h"
#include "workloads/train_read/train_read_results.h"
#include "workloads/train_read/train_read_run.h"
#include "workloads/train_read/train_windows.h"

namespace iofab {
namespace {

using nlohmann::json;

class TrainReadPhase final : public Phase {
 public:
  TrainReadPhase(TrainReadParams p, EngineFactory make) : p_(std::move(p)), make_(std::move(make)) {}

  std::optional<uint64_t> planned_bytes(int) const override {
    // One dataset for all ranks; a dataset_dir is not on the target. Bounded by the params
    // (1e9 samples of at most 256 MiB), so it fits in 64 bits.
    return p_.dataset_dir.empty() ? dataset_bytes_on_disk(p_.dataset) : 0;
  }

  // data/ and a file's path (a name grows with its number: the first and the last file bound them all),
  // or the manifest while it is written; nothing below the run's folder with a dataset_dir.
  size_t longest_path_bytes(int) const override {
    if (!p_.dataset_dir.empty()) return 0;
    const DatasetLayout layout(p_.dataset);
    size_t file = std::string_view(kManifestTemp).size();
    if (layout.num_files() > 0) {
      file = std::max({file, layout.file_path(0).size(), layout.file_path(layout.num_files() - 1).size()});
    }
    return std::string_view(kDataFolder).size() + 1 + file;
  }

  Status check_on_object_store() const override {
    if (p_.dataset_dir.empty()) return Status::Ok();
    return Status::Invalid("dataset_dir \"" + p_.dataset_dir +
                           "\" is a folder on a filesystem, but the target is an object store, where the "
                           "dataset is generated as objects below the run's prefix; remove dataset_dir, or "
                           "give a folder target to read a dataset_dir");
  }

  Status run(PhaseContext& ctx, PhaseResult* result) override;

 private:
  TrainReadParams p_;
  EngineFactory make_;
};

Status TrainReadPhase::run(PhaseContext& ctx, PhaseResult* result) {
  // The runner refuses this before anything is written; a phase run on its own refuses it here.
  if (ctx.store != nullptr && !dataset_has_page_cache(*ctx.store)) {
    if (Status s = check_on_object_store(); !s.ok()) return s;
  }
  return run_train_read(p_, make_, ctx, result);
}

}  // namespace

std::unique_ptr<Phase> make_train_read_phase(const TrainReadParams& params, EngineFactory make) {
  return std::make_unique<TrainReadPhase>(params, std::move(make));
}

namespace {

// The phase makes dataset_dir but not its parents: a missing parent must stop the suite before any earlier
// phase writes, not fail this one at run time.
void check_dataset_dir_parent(ParamReader& r, const std::string& dir) {
  const std::string parent = parent_path(dir);
  const PathKind kind = parent.empty() ? PathKind::kFolder : path_kind(parent);
  const bool found = kind != PathKind::kMissing;
  if (!found || kind != PathKind::kFolder) {
    r.fail("dataset_dir", "its parent " + parent + (found ? " is not a folder" : " does not exist") +
                              "; expected a folder whose parent exists (the phase makes dataset_dir, not its "
                              "parents)");
  }
}

// The DataLoader profile models a map-style Dataset reading one file per sample through Python's open().
void check_pytorch_pairs(ParamReader& r, const TrainReadParams& p) {
  const char* why = nullptr;
  std::string_view key;
  if (p.dataset.layout != DatasetLayoutKind::kFiles) {
    key = "layout", why = "must be files with loader: pytorch (its Dataset opens one file per sample)";
  } else if (p.direct) {
    key = "direct", why = "must be false with loader: pytorch (Python's open() reads through the page cache)";
  } else if (p.reader != ReaderKind::kMap) {
    key = "reader", why = "must be map with loader: pytorch (a map-style Dataset)";
  } else if (!p.cache_dir.empty()) {
    key = "cache_dir", why = "applies only to loader: native";
  } else if (p.to_gpu) {
    key = "to_gpu", why = "applies only to loader: native (the profile's pin_memory copies each batch)";
  }
  if (why != nullptr) r.fail(key, why);
}

// What two params together may not ask for (each one alone was read and checked).
void check_param_pairs(ParamReader& r, const TrainReadParams& p, bool buffer_given) {
  const DatasetSpec& ds = p.dataset;
  if (p.batch_size > ds.num_samples) {
    r.fail("batch_size", "must be <= num_samples (" + std::to_string(ds.num_samples) +
                             "): a batch cannot be larger than the dataset");
  }
  check_sample_params(r, ds);
  if (p.drop_after_use == DropAfterUse::kOn && p.direct) {
    r.fail("drop_after_use",
           "on needs buffered reads (direct: false): O_DIRECT reads never enter the page cache");
  }
  if (p.order == OrderKind::kDlioTorch && p.reader != ReaderKind::kMap) {
    r.fail("order", "dlio_torch is DLIO's PyTorch sampler, a map-style reader: it needs reader: map");
  }
  if (p.loader == LoaderKind::kPytorch) check_pytorch_pairs(r, p);
  if (buffer_given && p.reader != ReaderKind::kStream) {
    r.fail("shuffle_buffer",
           "applies only to reader: stream (a map-style reader shuffles through its sampler)");
  }
  if (buffer_given && p.sample_shuffle == Shuffle::kOff) {
    r.fail("shuffle_buffer",
           "needs sample_shuffle seed or random: with sample_shuffle off nothing is shuffled");
  }
}

}  // namespace

std::unique_ptr<Phase> parse_train_read(ParamReader& r) {
  TrainReadParams p;
  DatasetSpec& ds = p.dataset;
  ds.layout = r.choice("layout", "shards", {"files", "shards"}) == "files" ? DatasetLayoutKind::kFiles
                                                                           : DatasetLayoutKind::kShards;
  read_sample_params(r, &ds);
  // A suite states the dataset at full size; scale runs 1/scale of its samples (at least one), the same
  // sizes and layout, as a checkpoint phase's scale runs its checkpoint.
  p.scale = r.count("scale", 1, 1, 1e12);
  p.full_num_samples = ds.num_samples;
  ds.num_samples = std::max<uint64_t>(
      1, static_cast<uint64_t>(std::llround(static_cast<double>(ds.num_samples) / p.scale)));
  ds.files_per_dir = static_cast<uint64_t>(r.integer("files_per_dir", 1024, 2, 10'000'000));
  ds.samples_per_shard = static_cast<uint64_t>(r.integer("samples_per_shard", 1024, 1, 1'000'000'000));
  ds.reduce = read_reducibility(r);
  p.dataset_dir = r.string("dataset_dir", "");
  if (!p.dataset_dir.empty()) check_dataset_dir_parent(r, p.dataset_dir);
  const IoParams io = read_io_params(r, {.queue_depth = 8, .has_block_size = false, .reads = true});
  p.engine = io.engine;
  p.direct = io.direct;
  p.madvise = io.madvise;
  p.read_threads = static_cast<unsigned>(r.integer("read_threads", io.workers, 1, 1024));
  p.queue_depth = io.queue_depth;
  p.series_interval_ns = io.series_interval_ns;
  p.prefetch = static_cast<unsigned>(r.integer("prefetch", 2, 0, 65536));
  p.read_size = r.size("read_size", kMaxRequestBytes, kRecordAlignment, kMaxRequestBytes);
  if (p.read_size % kRecordAlignment != 0) {
    r.fail("read_size", "must be a multiple of 4 KiB (" + std::to_string(kRecordAlignment) +
                            " bytes), e.g. 256KiB, up to 256MiB");
  }
  const std::string after = r.choice("drop_after_use", "off", {"auto", "on", "off"});
  p.drop_after_use = after == "on"    ? DropAfterUse::kOn
                     : after == "off" ? DropAfterUse::kOff
                                      : DropAfterUse::kAuto;
  p.batch_size = static_cast<uint64_t>(r.integer("batch_size", 32, 1, 1'000'000));
  p.epochs = static_cast<uint64_t>(r.integer("epochs", 2, 1, 1'000'000));
  p.compute_per_batch = r.duration("compute_per_batch", 0, 0, 3600);
  p.drop_last = r.boolean("drop_last", false);
  const std::string drop = r.choice("drop_cache", "every_epoch", {"every_epoch", "first_epoch", "never"});
  p.drop_cache = drop == "never"         ? DropCache::kNever
                 : drop == "first_epoch" ? DropCache::kFirstEpoch
                                         : DropCache::kEveryEpoch;
  p.to_gpu = r.boolean("to_gpu", false);
  auto shuffle = [&](std::string_view key, const char* def) {
    const std::string v = r.choice(key, def, {"off", "seed", "random"});
    return v == "off" ? Shuffle::kOff : v == "random" ? Shuffle::kRandom : Shuffle::kSeed;
  };
  p.reader =
      r.choice("reader", "map", {"map", "stream"}) == "stream" ? ReaderKind::kStream : ReaderKind::kMap;
  p.order = r.choice("order", "default", {"default", "dlio_torch"}) == "dlio_torch" ? OrderKind::kDlioTorch
                                                                                    : OrderKind::kDefault;
  p.file_shuffle = shuffle("file_shuffle", "off");
  p.sample_shuffle = shuffle("sample_shuffle", "seed");
  const bool buffer_given = r.raw("shuffle_buffer") != nullptr;
  p.shuffle_buffer = static_cast<uint64_t>(r.integer("shuffle_buffer", 1024, 1, 1'000'000'000));
  p.mlperf = r.boolean("mlperf", false);
  read_cache_params(r, &p);
  read_loader_params(r, &p.loader, &p.torch);

  check_param_pairs(r, p, buffer_given);
  ds.resolve_size_bounds();
  if (ds.layout == DatasetLayoutKind::kShards && ds.samples_per_shard > ds.num_samples) {
    ds.samples_per_shard = ds.num_samples;  // one shard holds them all; the manifest records what was made
  }
  // The engine is chosen when the engines are made, on the machine that runs the phase, for its store.
  return make_train_read_phase(p, nullptr);
}

std::span<const std::string_view> train_read_solo_metrics() {
  static constexpr std::string_view kSolo[] = {"au", "sample_latency_p99_s", "samples_per_s",
                                               "read_bytes_per_s"};
  return kSolo;
}

namespace {

// What every run reports: throughput, AU, latency, the cache and device counters, the dataset's
// listing and startup.
namespace {

// train_read_epoch_metrics's rows in 2 parts, in the report's order (harness/phase/metric_rows.h).
std::vector<MetricInfo> train_read_epoch_rows_1() {
  return {
      {.name = "samples_per_s",
       .unit = Unit::kCount,
       .better = Better::kHigher,
       .description = "samples read by all ranks / the epochs' wall time"},
      {.name = "read_bytes_per_s",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kHigher,
       .description = "sample bytes read by all ranks / the epochs' wall time"},
      {.name = "au",
       .unit = Unit::kFraction,
       .better = Better::kHigher,
       .description = "accelerator utilisation: compute time / wall time, all ranks and epochs, first batch "
                      "of each epoch "
                      "excluded"},
      {.name = "sample_latency_p99_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "per-sample read latency, 99th percentile"},
      {.name = "batch_wait_fraction",
       .unit = Unit::kFraction,
       .better = Better::kLower,
       .description = "time the accelerator waited for data / wall time, first batch of each epoch excluded"},
      {.name = "au_min",
       .unit = Unit::kFraction,
       .better = Better::kHigher,
       .description = "the lowest AU of any rank in any epoch"},
      {.name = "sample_latency_p50_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "per-sample read latency, median"},
      {.name = "sample_latency_p90_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "per-sample read latency, 90th percentile"},
      {.name = "sample_latency_p999_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "per-sample read latency, 99.9th percentile"},
      {.name = "sample_latency_max_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "per-sample read latency, max"},
      {.name = "cache_resident_fraction",
       .unit = Unit::kFraction,
       .better = Better::kNeither,
       .description = "share of the dataset in the page cache at the epochs' starts (after any drop)"},
      {.name = "device_read_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "bytes the dataset's block device read during the epochs (/proc/diskstats)"},
      {.name = "device_read_ratio",
       .unit = Unit::kRatio,
       .better = Better::kNeither,
       .description = "device_read_bytes / read_bytes"},
      {.name = "generate_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "dataset generation (0 when reused), never read time"},
  };
}

std::vector<MetricInfo> train_read_epoch_rows_2() {
  return {
      {.name = "read_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "sum of the epochs' wall times"},
      {.name = "samples",
       .unit = Unit::kCount,
       .better = Better::kNeither,
       .description = "samples read, all ranks and epochs"},
      {.name = "read_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "sample bytes read, all ranks and epochs"},
      {.name = "epochs", .unit = Unit::kCount, .better = Better::kNeither, .description = "epochs run"},
      {.name = "first_batch_wait_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "longest wait for an epoch's first batch (pipeline fill)"},
      {.name = "dataset_list_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description =
           "layout files: listing the dataset's folder tree before the first epoch, as DLIO does (slowest "
           "rank)"},
      {.name = "dataset_startup_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description =
           "layout files: the listing plus the first epoch's wait for its first batch (slowest rank)"},
      {.name = "corrupt_samples",
       .unit = Unit::kCount,
       .better = Better::kLower,
       .description = "samples read back with the wrong header"},
  };
}

}  // namespace

std::vector<MetricInfo> train_read_epoch_metrics() {
  return joined_rows({train_read_epoch_rows_1(), train_read_epoch_rows_2()});
}

// The figures as MLPerf Storage (DLIO) computes them, and its minimum dataset size.
std::vector<MetricInfo> train_read_mlperf_metrics() {
  return {
      {.name = "mlperf_au",
       .unit = Unit::kFraction,
       .better = Better::kHigher,
       .description =
           "AU as MLPerf Storage (DLIO) defines it: mean over epochs of the mean over ranks of each rank's "
           "AU, "
           "the compute of steps 2.. over the time from step 1's compute end (metric_exclude_start_steps 1)"},
      {.name = "mlperf_samples_per_s",
       .unit = Unit::kCount,
       .better = Better::kHigher,
       .description = "throughput as DLIO defines it: mean over epochs of the sum over ranks of (steps - 2) "
                      "x batch_size "
                      "/ "
                      "the time from the rank's first step's compute end to its last's (0 below 3 steps)"},
      {.name = "mlperf_read_bytes_per_s",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kHigher,
       .description =
           "DLIO's I/O throughput: mlperf_samples_per_s x sample_size (the mean size, not the bytes read); "
           "DLIO "
           "prints it / 2^20 as \"MB/second\", which is MiB/s"},
      {.name = "mlperf_min_samples",
       .unit = Unit::kCount,
       .better = Better::kNeither,
       .description =
           "MLPerf's minimum dataset: max(500 steps x batch x ranks, 5 x the hosts' memory / sample_size)"},
      {.name = "mlperf_min_dataset_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "mlperf_min_samples x sample_size"},
      {.name = "mlperf_dataset_size_margin",
       .unit = Unit::kRatio,
       .better = Better::kHigher,
       .description = "num_samples / mlperf_min_samples: >= 1 meets MLPerf's minimum dataset size"},
  };
}

// With cache_dir: the source's and the cache tier's shares, and AU per kind of epoch.
std::vector<MetricInfo> train_read_cache_metrics() {
  return {
      {.name = "dataset_read_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description =
           "sample bytes read from the dataset's storage (with cache_dir: the source's share, source-only "
           "epoch "
           "included); what the device counters verify"},
      {.name = "cache_hit_fraction",
       .unit = Unit::kFraction,
       .better = Better::kHigher,
       .description = "cache_dir: share of the samples of epochs 1 and later served by the cache tier"},
      {.name = "source_read_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description =
           "cache_dir: sample bytes read from the source (the dataset), all epochs but the source-only one"},
      {.name = "cache_read_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "cache_dir: sample bytes read from the cache tier"},
      {.name = "cache_fill_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "cache_dir: bytes written to the cache tier (samples padded to 4 KiB)"},
      {.name = "cache_fill_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "cache_dir: readers' time writing the cache, summed over readers and ranks"},
      {.name = "au_first_epoch",
       .unit = Unit::kFraction,
       .better = Better::kHigher,
       .description = "cache_dir: AU of epoch 0, read from the source while filling the cache"},
      {.name = "au_cached",
       .unit = Unit::kFraction,
       .better = Better::kHigher,
       .description =
           "cache_dir: AU of epochs 1 and later, served by the cache tier (the source where it misses)"},
      {.name = "au_source_only",
       .unit = Unit::kFraction,
       .better = Better::kHigher,
       .description = "cache_dir: AU of one extra epoch read from the source alone (cache_source_epoch)"},
  };
}

// With loader pytorch: the native loader's ceiling beside the DataLoader profile.
std::vector<MetricInfo> train_read_loader_metrics() {
  return {
      {.name = "storage_ceiling_samples_per_s",
       .unit = Unit::kCount,
       .better = Better::kHigher,
       .description =
           "loader pytorch: samples/s of iofab's native loader over the same dataset, one epoch after the "
           "profile's (the storage's ceiling)"},
      {.name = "storage_ceiling_read_bytes_per_s",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kHigher,
       .description = "loader pytorch: the native epoch's sample bytes / its wall time"},
      {.name = "framework_fraction",
       .unit = Unit::kFraction,
       .better = Better::kHigher,
       .description = "loader pytorch: samples_per_s / storage_ceiling_samples_per_s, the share of the "
                      "storage's ceiling "
                      "the DataLoader gets"},
  };
}

}  // namespace

const std::vector<MetricInfo>& train_read_metrics() {
  static const std::vector<MetricInfo> kMetrics = [] {
    std::vector<MetricInfo> rows;
    for (const auto& group : {train_read_epoch_metrics(), train_read_mlperf_metrics(),
                              train_read_cache_metrics(), train_read_loader_metrics()}) {
      rows.insert(rows.end(), group.begin(), group.end());
    }
    // On an s3:// target: the epochs' GETs per second, time to first byte, latency, retries, errors.
    for (const MetricInfo& m : request_metric_infos()) rows.push_back(m);
    // In a concurrent group: AU and latency inside the other phases' windows and outside them.
    for (const MetricInfo& m : window_metric_infos()) rows.push_back(m);
    return with_solo_metrics(std::move(rows), train_read_solo_metrics());
  }();
  return kMetrics;
}

}  // namespace iofab
