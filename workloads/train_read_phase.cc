#include "workloads/train_read_phase.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <random>

#include "harness/comm/agree.h"
#include "harness/comm/local_rank.h"
#include "harness/comm/rank_gather.h"
#include "harness/core/units.h"
#include "harness/engines/engine.h"
#include "harness/engines/io_pump.h"
#include "harness/fs/diskstats.h"
#include "harness/fs/read_only_mount.h"
#include "harness/fs/target.h"
#include "harness/gpu/batch_copy.h"
#include "harness/phase/io_params.h"
#include "harness/phase/params.h"
#include "harness/phase/reducibility_params.h"
#include "harness/phase/request_metrics.h"
#include "harness/stats/io_tally.h"
#include "harness/store/posix_store.h"
#include "workloads/dataset_manifest.h"
#include "workloads/dataset_params.h"
#include "workloads/sampler.h"
#include "workloads/train_cache.h"
#include "workloads/train_cache_params.h"
#include "workloads/train_cache_results.h"
#include "workloads/train_read_results.h"
#include "workloads/train_windows.h"

namespace iofab {
namespace {

using nlohmann::json;

// Rank 0's verdict on the dataset folder, sent to every rank.
struct DatasetDecision {
  bool generate = false;
  std::string why;          // why a stale dataset is regenerated; empty otherwise
  uint64_t order_seed = 0;  // the access order's seed: drawn here for a `random` shuffle
};

json to_wire(const DatasetDecision& d) {
  return {{"generate", d.generate}, {"why", d.why}, {"order_seed", d.order_seed}};
}

Status from_wire(const json& j, DatasetDecision* out) {
  WireReader r(j);
  r.field("generate", &out->generate).field("why", &out->why).field("order_seed", &out->order_seed);
  return r.status();
}

// A dataset_dir is a store of its own, rooted there; create: make the folder (its parent must exist).
Status open_dataset_store(const std::string& path, bool create, std::unique_ptr<Store>* out) {
  Status s = open_posix_store(path, create, out);
  return s.ok() ? s : Status::FromCode(s.code(), "dataset_dir: " + s.message());
}

uint64_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

// Following a group's clock: goes on only while the clock phase runs on every rank, so all ranks run the
// same epochs (each epoch ends in collective calls).
Status agree_clock_running(Comm& comm, const std::atomic<bool>& until, bool* running) {
  std::vector<double> ended;
  Status s = comm.all_gather(until.load() ? 1.0 : 0.0, &ended);
  *running = s.ok() && std::all_of(ended.begin(), ended.end(), [](double e) { return e == 0; });
  return s;
}

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
  bool drop_before(uint64_t epoch) const {
    return p_.drop_cache == DropCache::kEveryEpoch || (p_.drop_cache == DropCache::kFirstEpoch && epoch == 0);
  }

  TrainReadParams p_;
  EngineFactory make_;
};

Status TrainReadPhase::run(PhaseContext& ctx, PhaseResult* result) {
  Comm& comm = ctx.comm;
  const int rank = comm.rank();
  const bool user_dir = !p_.dataset_dir.empty();
  const std::string dataset_path = user_dir ? p_.dataset_dir : ctx.run_dir_path + "/" + ctx.phase_name;
  RankReport local;
  // The runner refuses this before anything is written; a phase run on its own refuses it here.
  if (ctx.store != nullptr && !dataset_has_page_cache(*ctx.store)) {
    if (Status s = check_on_object_store(); !s.ok()) return s;
  }

  LocalRank where;
  Status st = agree(comm, find_local_rank(comm, &where));
  local.host = where.host;

  // The dataset's folder: the phase's own in the run's store, or the user's dataset_dir, a store of its own.
  const DatasetLayout layout(p_.dataset);
  std::unique_ptr<Store> dir_store;  // a dataset_dir's
  Store* store = user_dir ? nullptr : ctx.store;
  const std::string root = user_dir ? "" : ctx.phase_name;
  const std::string data = join_store_path(root, kDataFolder);
  // Rank 0, a dataset_dir: held for the whole phase, so no other run regenerates under us.
  std::unique_ptr<StoreLock> lock;
  std::vector<std::string> prepare_notes;
  if (st.ok()) {
    Status mine;
    if (!user_dir) {
      mine =
          store != nullptr ? store->make_folder(root) : Status::Internal("train_read: the run has no store");
    } else if (rank == 0) {
      mine = open_dataset_store(p_.dataset_dir, true, &dir_store);
    }
    st = agree(comm, mine);
  }
  if (st.ok() && user_dir) {
    st = agree(comm, rank == 0 ? Status::Ok() : open_dataset_store(p_.dataset_dir, false, &dir_store));
  }
  if (user_dir) store = dir_store.get();

  // Rank 0 decides: reuse, or generate (fresh, or over a stale iofab dataset); a folder with anything else is
  // refused.
  DatasetDecision decision;
  if (st.ok()) {
    Status mine;
    if (rank == 0) {
      DatasetDirState state = DatasetDirState::kEmpty;
      std::string why;
      if (user_dir) {
        mine = lock_dataset_dir(*store, root, dataset_path, &lock);
        if (mine.ok() && lock == nullptr) {
          prepare_notes.push_back(
              "its filesystem does not support flock: another run using it at the same time "
              "would not be kept out");
        }
      }
      if (mine.ok()) mine = inspect_dataset_dir(*store, root, layout, &state, &why, &ctx.stop);
      if (mine.ok() && state == DatasetDirState::kForeign) {
        remove_dataset_lock(*store, root, &lock);  // a folder refused is left as it was found
        mine = Status::Invalid("dataset_dir " + dataset_path + " " + why +
                               "; iofab generates only into an empty folder or one it made: choose another");
      }
      decision.order_seed = p_.dataset.seed;
      if (p_.file_shuffle == Shuffle::kRandom || p_.sample_shuffle == Shuffle::kRandom) {
        std::random_device rd;
        decision.order_seed = (static_cast<uint64_t>(rd()) << 32) ^ rd();
      }
      decision.generate = state == DatasetDirState::kEmpty || state == DatasetDirState::kStale;
      decision.why = state == DatasetDirState::kStale ? why : "";
      if (mine.ok() && decision.generate && on_read_only_mount(p_.dataset_dir)) {
        // Read-only: a complete, matching dataset is read as it is; anything else cannot be made there.
        remove_dataset_lock(*store, root, &lock);
        mine = Status::Invalid("dataset_dir " + dataset_path + " is on a read-only filesystem and holds no " +
                               "complete dataset matching the phase" + (why.empty() ? "" : " (" + why + ")") +
                               "; generate it on a writable mount first, or choose another dataset_dir");
      }
      uint64_t free_bytes = 0;
      if (mine.ok() && user_dir && decision.generate && store->free_space(&free_bytes).ok() &&
          free_bytes < layout.total_bytes() + (64ULL << 20)) {
        mine = Status::Invalid("dataset_dir " + dataset_path + " has " + std::to_string(free_bytes) +
                               " bytes free; the dataset needs " + std::to_string(layout.total_bytes()) +
                               " bytes plus 64 MiB; nothing was written");
      }
    }
    st = agree(comm, mine);
    if (st.ok()) st = agree(comm, broadcast_value(comm, &decision, 0, "dataset decision"));
  }
  // The cache tier, on every rank: the phase's folder in this host's cache_dir, shared by its ranks. Made
  // before the dataset, so a cache_dir without room refuses the phase before anything is written.
  std::unique_ptr<SampleCache> cache_tier;
  std::string cache_device;
  if (st.ok() && !p_.cache_dir.empty()) {
    CacheTierOptions co;
    co.dir = p_.cache_dir;
    co.host_ranks = where.size;
    co.dataset_dir = p_.dataset_dir;
    const uint64_t whole = cached_dataset_bytes(layout);
    // No cache_size: no share to keep to, only the free space for the whole dataset.
    co.host_limit = p_.cache_size > 0 ? p_.cache_size : UINT64_MAX;
    co.need_bytes = std::min(co.host_limit, whole);
    st = agree(comm, SampleCache::open(co, ctx, &cache_tier));
    TargetInfo info;
    cache_device = describe_target(p_.cache_dir, &info).ok() ? info.block_device : "";
  }
  const bool generate = st.ok() && decision.generate;
  // Progress is per rank: its share of the generation and of every epoch.
  const auto share = static_cast<uint64_t>(comm.size());
  ctx.progress.total_bytes.store((p_.epochs * layout.sample_bytes() + (generate ? layout.total_bytes() : 0)) /
                                 share);

  // Generation, timed on its own from a barrier to the agreement that every rank finished.
  double generate_seconds = 0;
  if (st.ok() && generate) {
    st = agree(comm, rank == 0 ? prepare_dataset_dir(*store, root, layout, &prepare_notes, &ctx.stop)
                               : Status::Ok());
    if (st.ok()) st = comm.barrier();
    if (st.ok()) {
      const uint64_t g0 = now_ns();
      Status mine = store->make_folder(data);
      GenerateOptions go;
      go.rank = rank;
      go.ranks = comm.size();
      go.threads = p_.read_threads;
      go.stop = &ctx.stop;
      go.progress = &ctx.progress.done_bytes;
      uint64_t written = 0;
      if (mine.ok()) mine = generate_dataset_part(*store, data, layout, go, &written);
      st = agree(comm, mine);
      generate_seconds = static_cast<double>(now_ns() - g0) * 1e-9;
    }
    if (st.ok()) {
      st = agree(comm, rank == 0 ? complete_manifest(*store, root, layout, generate_seconds) : Status::Ok());
    }
  }
  if (st.ok() && !generate) {
    EntryInfo info;
    Status mine = store->stat(data, &info);
    if (mine.ok() && info.kind != EntryKind::kFolder) {
      mine = Status::FromErrno("open " + dataset_path + "/data",
                               info.kind == EntryKind::kMissing ? ENOENT : ENOTDIR);
    }
    st = agree(comm, mine);
  }

  // The loader, and the GPU copier when asked for and possible.
  std::unique_ptr<BatchCopier> copier;
  json gpu = {{"requested", p_.to_gpu}, {"used", false}};
  if (p_.to_gpu) {
    Status cs =
        BatchCopier::create(p_.prefetch + 1, p_.batch_size * layout.max_sample_size(), where.rank, &copier);
    if (cs.ok()) {
      gpu["used"] = true;
      gpu["device"] = copier->device();
    } else {
      gpu["reason"] = cs.message();
    }
  }
  std::unique_ptr<TrainLoader> loader;
  if (st.ok()) {
    // The engine: the one injected (tests), else the store's own (s3 on an object store) or the one
    // asked for.
    EngineFactory make = make_;
    Status engine = Status::Ok();
    if (!make) {
      std::string name;
      engine = engine_for_store(*store, p_.engine, &name);
      make = [&ctx, name](const EngineOptions& eo, std::unique_ptr<Engine>* out) {
        return make_phase_engine(ctx, name, eo, out);
      };
    }
    LoaderConfig lc;
    lc.read_threads = p_.read_threads;
    lc.queue_depth = p_.queue_depth;
    lc.prefetch = p_.prefetch;
    lc.compute_ns = static_cast<uint64_t>(std::llround(p_.compute_per_batch * 1e9));
    lc.direct = p_.direct;
    lc.map_advice = p_.madvise;
    lc.series_interval_ns = p_.series_interval_ns;
    lc.cache_tier = !p_.cache_dir.empty();
    st = agree(comm, engine.ok() ? TrainLoader::create(lc, layout, *store, data, make, copier.get(), &loader)
                                 : engine);
  }
  // An object store's requests so far (the dataset's generation) apart from the epochs' reads.
  local.objects = store != nullptr && !dataset_has_page_cache(*store);
  if (store != nullptr) local.generate_requests = take_request_stats_json(*store);
  if (loader && cache_tier) loader->use_cache(cache_tier.get());
  // In a concurrent group: the loader's timeline, split by the group's windows at the end.
  LoaderMarks marks;
  if (loader && ctx.windows != nullptr) loader->record_marks(&marks);
  if (loader) local.engine = loader->engine_name();
  local.verified = loader ? loader->verifies() : false;

  // The device the dataset lives on, for the bytes it really read.
  std::string device = ctx.target.block_device;
  if (user_dir) {
    TargetInfo info;
    device = describe_target(p_.dataset_dir, &info).ok() ? info.block_device : "";
  }
  const bool reads_disk = where.rank == 0 && !device.empty() && read_disk_counters(device).has_value();
  local.device = device;
  local.tier_device = cache_device;

  EpochOrder order;
  order.num_samples = layout.num_samples();
  order.samples_per_file = layout.samples_in(0);
  order.reader = p_.reader;
  order.file_shuffle = p_.file_shuffle;
  order.sample_shuffle = p_.sample_shuffle;
  order.shuffle_buffer = p_.shuffle_buffer;
  // tf.data reads num_parallel_reads files at once, and DLIO passes it read_threads.
  order.interleave = p_.read_threads;
  order.seed = decision.order_seed;
  local.memory_bytes = host_memory_bytes();

  const bool reads_cache_disk =
      where.rank == 0 && !cache_device.empty() && read_disk_counters(cache_device).has_value();
  if (p_.cache_source_epoch) ctx.progress.total_bytes.fetch_add(layout.sample_bytes() / share);

  // Epochs 0 .. epochs-1, then with a cache tier the source-only epoch (its own permutation, the next
  // epoch's), read with the cache out of the path. Following a group's clock: epochs until it ends.
  const bool follows = ctx.until != nullptr;
  const uint64_t last = p_.epochs + (p_.cache_source_epoch && cache_tier != nullptr && !follows ? 1 : 0);
  if (ctx.ready_to_start) ctx.ready_to_start();
  for (uint64_t epoch = 0; st.ok() && (follows || epoch < last); ++epoch) {
    if (follows && epoch > 0) {
      bool clock_running = false;
      st = agree_clock_running(comm, *ctx.until, &clock_running);
      if (!st.ok() || !clock_running) break;
    }
    const bool source_only = !follows && epoch == p_.epochs;
    if (source_only) loader->use_cache(nullptr);
    // Untimed: drop the pages meant to be cold, measure what is resident, draw the plan. The source-only
    // epoch measures the source as epoch 0 did: cold unless the suite never drops.
    const bool drop = source_only ? p_.drop_cache != DropCache::kNever : drop_before(epoch);
    CacheCounts cache;
    Status mine = dataset_cache_pass(*store, data, layout, static_cast<uint64_t>(where.rank),
                                     static_cast<uint64_t>(where.size), drop, &cache);
    CacheCounts tier;
    if (mine.ok() && cache_tier != nullptr && !source_only) mine = cache_tier->cache_pass(drop, &tier);
    const BatchPlan plan = plan_ordered_epoch(order, epoch, rank, comm.size(), p_.batch_size, p_.drop_last);
    uint64_t planned_sum = 0;
    for (uint32_t s : plan.samples) planned_sum += sample_fingerprint(s);
    if (mine.ok() && ctx.stop.load()) mine = Status::Interrupted();
    st = agree(comm, mine);
    if (!st.ok()) break;

    const auto disk0 = reads_disk ? read_disk_counters(device) : std::nullopt;
    const auto tier0 = reads_cache_disk ? read_disk_counters(cache_device) : std::nullopt;
    st = comm.barrier();
    if (!st.ok()) break;
    const uint64_t t0 = now_ns();
    EpochStats stats(p_.series_interval_ns);
    Status rs = loader->run_epoch(plan, t0, ctx.stop, &ctx.progress.done_bytes, &stats);
    const auto disk1 = reads_disk ? read_disk_counters(device) : std::nullopt;
    const auto tier1 = reads_cache_disk ? read_disk_counters(cache_device) : std::nullopt;

    EpochRecord& rec = (source_only ? local.source_epochs : local.epochs).emplace_back();
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
    st = agree(comm, rs);
  }

  // The other phases' windows, once every one that posts them has ended: a window still to come
  // would change the split.
  if (ctx.windows != nullptr) {
    bool complete = false;
    const std::vector<TimeWindow> windows = ctx.windows->wait_all(ctx.stop, &complete);
    local.windows = split_by_windows(marks, windows, complete);
  }

  // Teardown: engines before the files they read, the lock before the store, then the dataset unless it
  // is to stay.
  loader.reset();
  // The readers' engines are gone: the epochs' request figures are whole.
  if (store != nullptr) local.requests = take_request_stats_json(*store);
  copier.reset();
  lock.reset();
  dir_store.reset();
  st.update(comm.barrier());
  // After the barrier: every local rank is done with the folder they share.
  const std::string cache_location = cache_tier != nullptr ? cache_tier->location() : "";
  const uint64_t cache_limit = cache_tier != nullptr ? cache_tier->rank_limit() : 0;
  if (cache_tier != nullptr) {
    Status gone = cache_tier->remove();
    if (st.ok()) st = gone;
    cache_tier.reset();
  }
  Status removed;
  if (!user_dir && !ctx.keep && rank == 0 && store != nullptr) removed = store->remove_tree(root);
  if (st.ok() && !removed.ok()) st = removed;

  local.status = st;
  std::vector<RankReport> ranks;
  Status g = gather_to_root(comm, local, &ranks);
  if (!g.ok()) return g;
  if (rank != 0) return st;

  Status worst = st;
  summarize_train_read(p_, ranks, layout, result, &worst);
  WindowSplit split;
  for (const auto& r : ranks) split.merge(r.windows);
  report_window_split(split, result);
  if (follows) result->details["follows_clock"] = {{"epochs", ranks.front().epochs.size()}};
  // A reused dataset matched the spec, reducibility included: this is what the data on the target hold.
  result->details["data_reducibility"] = reducibility_details(p_.dataset.reduce, kRecordAlignment);
  if (!p_.cache_dir.empty()) {
    summarize_cache_tier(p_, ranks, layout, result, &worst);
    result->details["cache_tier"]["path"] = cache_location;
    result->details["cache_tier"]["rank_limit_bytes"] =
        cache_limit == UINT64_MAX ? json(nullptr) : json(cache_limit);
    result->details["cache_tier"]["kept"] = ctx.keep;
    result->details["cache_tier"]["device"] = cache_device.empty() ? json(nullptr) : json(cache_device);
    result->details["cache_tier"]["devices"] = tier_devices(ranks);
  }
  summarize_train_requests(ranks, result);
  auto& d = result->details;
  d["dataset"] = {{"path", dataset_path},
                  {"origin", generate ? "generated" : "reused"},
                  {"regenerated_because", decision.why},
                  {"kept", user_dir || ctx.keep},
                  {"layout", layout_name(p_.dataset.layout)},
                  {"files", layout.num_files()},
                  {"bytes", layout.total_bytes()},
                  {"sample_bytes", layout.sample_bytes()},
                  {"max_sample_size", layout.max_sample_size()},
                  {"spec", layout.spec().to_json()},
                  {"generate_seconds", generate_seconds}};
  d["to_gpu"] = gpu;
  d["order"] = {{"reader", reader_kind_name(p_.reader)},
                {"file_shuffle", shuffle_name(p_.file_shuffle)},
                {"sample_shuffle", shuffle_name(p_.sample_shuffle)},
                {"seed", decision.order_seed}};
  if (p_.reader == ReaderKind::kStream) {
    d["order"]["shuffle_buffer"] = p_.shuffle_buffer;
    d["order"]["files_at_once"] = p_.read_threads;
  }
  for (const auto& n : prepare_notes) result->warnings.push_back("dataset_dir " + dataset_path + ": " + n);
  result->metrics["generate_seconds"] = generate_seconds;
  if (p_.to_gpu && !gpu["used"].get<bool>()) {
    result->warnings.push_back("to_gpu skipped: " + gpu.value("reason", std::string("unknown")) +
                               "; batches were read but not copied to a device");
  }
  if (!p_.direct && !local.objects) {
    const uint64_t mem = host_memory_bytes();
    if (mem > 0 && layout.total_bytes() < mem) {
      result->warnings.push_back(
          "the dataset (" + units::format_bytes(static_cast<double>(layout.total_bytes())) +
          ") is smaller than this host's memory (" + units::format_bytes(static_cast<double>(mem)) +
          ") and reads are buffered (direct: false): figures may come from the page cache, not the storage; "
          "see each epoch's cache_resident_fraction and device_read_bytes");
    }
  }
  return worst;
}

}  // namespace

std::unique_ptr<Phase> make_train_read_phase(const TrainReadParams& params, EngineFactory make) {
  return std::make_unique<TrainReadPhase>(params, std::move(make));
}

std::unique_ptr<Phase> parse_train_read(ParamReader& r) {
  TrainReadParams p;
  DatasetSpec& ds = p.dataset;
  ds.layout = r.choice("layout", "shards", {"files", "shards"}) == "files" ? DatasetLayoutKind::kFiles
                                                                           : DatasetLayoutKind::kShards;
  read_sample_params(r, &ds);
  ds.files_per_dir = static_cast<uint64_t>(r.integer("files_per_dir", 1024, 2, 10'000'000));
  ds.samples_per_shard = static_cast<uint64_t>(r.integer("samples_per_shard", 1024, 1, 1'000'000'000));
  ds.reduce = read_reducibility(r);
  p.dataset_dir = r.string("dataset_dir", "");
  if (!p.dataset_dir.empty()) {
    // The phase makes the folder but not its parents: a missing parent must stop the suite before any
    // earlier phase writes, not fail this one at run time.
    const std::string parent = std::filesystem::path(p.dataset_dir).parent_path().string();
    std::error_code ec;
    const auto kind =
        parent.empty() ? std::filesystem::file_type::directory : std::filesystem::status(parent, ec).type();
    const bool found =
        kind != std::filesystem::file_type::not_found && kind != std::filesystem::file_type::none;
    if (!found || kind != std::filesystem::file_type::directory) {
      r.fail("dataset_dir",
             "its parent " + parent + (found ? " is not a folder" : " does not exist") +
                 "; expected a folder whose parent exists (the phase makes dataset_dir, not its "
                 "parents)");
    }
  }
  const IoParams io = read_io_params(r, {.queue_depth = 8, .has_block_size = false, .reads = true});
  p.engine = io.engine;
  p.direct = io.direct;
  p.madvise = io.madvise;
  p.read_threads = static_cast<unsigned>(r.integer("read_threads", io.workers, 1, 1024));
  p.queue_depth = io.queue_depth;
  p.series_interval_ns = io.series_interval_ns;
  p.prefetch = static_cast<unsigned>(r.integer("prefetch", 2, 0, 65536));
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
  p.file_shuffle = shuffle("file_shuffle", "off");
  p.sample_shuffle = shuffle("sample_shuffle", "seed");
  const bool buffer_given = r.raw("shuffle_buffer") != nullptr;
  p.shuffle_buffer = static_cast<uint64_t>(r.integer("shuffle_buffer", 1024, 1, 1'000'000'000));
  p.mlperf = r.boolean("mlperf", false);
  read_cache_params(r, &p);

  if (p.batch_size > ds.num_samples) {
    r.fail("batch_size", "must be <= num_samples (" + std::to_string(ds.num_samples) +
                             "): a batch cannot be larger than the dataset");
  }
  check_sample_params(r, ds);
  if (buffer_given && p.reader != ReaderKind::kStream) {
    r.fail("shuffle_buffer",
           "applies only to reader: stream (a map-style reader shuffles through its sampler)");
  }
  if (buffer_given && p.sample_shuffle == Shuffle::kOff) {
    r.fail("shuffle_buffer",
           "needs sample_shuffle seed or random: with sample_shuffle off nothing is shuffled");
  }
  ds.resolve_size_bounds();
  if (ds.layout == DatasetLayoutKind::kShards && ds.samples_per_shard > ds.num_samples) {
    ds.samples_per_shard = ds.num_samples;  // one shard holds them all; the manifest records what was made
  }
  // The engine is chosen when the engines are made, on the machine that runs the phase, for its store.
  return make_train_read_phase(p, nullptr);
}

std::span<const std::string_view> train_read_solo_metrics() {
  static constexpr std::string_view kSolo[] = {"au", "sample_latency_p99_s", "samples_per_s", "read_bytes_per_s"};
  return kSolo;
}

const std::vector<MetricInfo>& train_read_metrics() {
  static const std::vector<MetricInfo> kMetrics = [] {
    std::vector<MetricInfo> rows = {
      {"samples_per_s", Unit::kCount, Better::kHigher, "samples read by all ranks / the epochs' wall time"},
      {"read_bytes_per_s", Unit::kBytesPerSecond, Better::kHigher,
       "sample bytes read by all ranks / the epochs' wall time"},
      {"au", Unit::kFraction, Better::kHigher,
       "accelerator utilisation: compute time / wall time, all ranks and epochs, first batch of each epoch "
       "excluded"},
      {"sample_latency_p99_s", Unit::kSeconds, Better::kLower, "per-sample read latency, 99th percentile"},
      {"batch_wait_fraction", Unit::kFraction, Better::kLower,
       "time the accelerator waited for data / wall time, first batch of each epoch excluded"},
      {"au_min", Unit::kFraction, Better::kHigher, "the lowest AU of any rank in any epoch"},
      {"sample_latency_p50_s", Unit::kSeconds, Better::kLower, "per-sample read latency, median"},
      {"sample_latency_p90_s", Unit::kSeconds, Better::kLower, "per-sample read latency, 90th percentile"},
      {"sample_latency_p999_s", Unit::kSeconds, Better::kLower, "per-sample read latency, 99.9th percentile"},
      {"sample_latency_max_s", Unit::kSeconds, Better::kLower, "per-sample read latency, max"},
      {"cache_resident_fraction", Unit::kFraction, Better::kNeither,
       "share of the dataset in the page cache at the epochs' starts (after any drop)"},
      {"device_read_bytes", Unit::kBytes, Better::kNeither,
       "bytes the dataset's block device read during the epochs (/proc/diskstats)"},
      {"device_read_ratio", Unit::kRatio, Better::kNeither, "device_read_bytes / read_bytes"},
      {"generate_seconds", Unit::kSeconds, Better::kLower,
       "dataset generation (0 when reused), never read time"},
      {"read_seconds", Unit::kSeconds, Better::kLower, "sum of the epochs' wall times"},
      {"samples", Unit::kCount, Better::kNeither, "samples read, all ranks and epochs"},
      {"read_bytes", Unit::kBytes, Better::kNeither, "sample bytes read, all ranks and epochs"},
      {"epochs", Unit::kCount, Better::kNeither, "epochs run"},
      {"first_batch_wait_s", Unit::kSeconds, Better::kLower,
       "longest wait for an epoch's first batch (pipeline fill)"},
      {"corrupt_samples", Unit::kCount, Better::kLower, "samples read back with the wrong header"},
      {"mlperf_au", Unit::kFraction, Better::kHigher,
       "AU as MLPerf Storage (DLIO) defines it: mean over epochs of the mean over ranks of each rank's AU"},
      {"mlperf_samples_per_s", Unit::kCount, Better::kHigher,
       "throughput as DLIO defines it: mean over epochs of the sum over ranks of samples / the rank's epoch "
       "time"},
      {"mlperf_read_bytes_per_s", Unit::kBytesPerSecond, Better::kHigher,
       "DLIO's I/O throughput: mlperf_samples_per_s x sample_size (the mean size, not the bytes read); DLIO "
       "prints it / 2^20 as \"MB/second\", which is MiB/s"},
      {"mlperf_min_samples", Unit::kCount, Better::kNeither,
       "MLPerf's minimum dataset: max(500 steps x batch x ranks, 5 x the hosts' memory / sample_size)"},
      {"mlperf_min_dataset_bytes", Unit::kBytes, Better::kNeither, "mlperf_min_samples x sample_size"},
      {"mlperf_dataset_size_margin", Unit::kRatio, Better::kHigher,
       "num_samples / mlperf_min_samples: >= 1 meets MLPerf's minimum dataset size"},
      {"dataset_read_bytes", Unit::kBytes, Better::kNeither,
       "sample bytes read from the dataset's storage (with cache_dir: the source's share, source-only epoch "
       "included); what the device counters verify"},
      {"cache_hit_fraction", Unit::kFraction, Better::kHigher,
       "cache_dir: share of the samples of epochs 1 and later served by the cache tier"},
      {"source_read_bytes", Unit::kBytes, Better::kNeither,
       "cache_dir: sample bytes read from the source (the dataset), all epochs but the source-only one"},
      {"cache_read_bytes", Unit::kBytes, Better::kNeither,
       "cache_dir: sample bytes read from the cache tier"},
      {"cache_fill_bytes", Unit::kBytes, Better::kNeither,
       "cache_dir: bytes written to the cache tier (samples padded to 4 KiB)"},
      {"cache_fill_seconds", Unit::kSeconds, Better::kLower,
       "cache_dir: readers' time writing the cache, summed over readers and ranks"},
      {"au_first_epoch", Unit::kFraction, Better::kHigher,
       "cache_dir: AU of epoch 0, read from the source while filling the cache"},
      {"au_cached", Unit::kFraction, Better::kHigher,
       "cache_dir: AU of epochs 1 and later, served by the cache tier (the source where it misses)"},
      {"au_source_only", Unit::kFraction, Better::kHigher,
       "cache_dir: AU of one extra epoch read from the source alone (cache_source_epoch)"},
    };
    // On an s3:// target: the epochs' GETs per second, time to first byte, latency, retries, errors.
    for (const MetricInfo& m : request_metric_infos()) rows.push_back(m);
    // In a concurrent group: AU and latency inside the other phases' windows and outside them.
    for (const MetricInfo& m : window_metric_infos()) rows.push_back(m);
    return with_solo_metrics(std::move(rows), train_read_solo_metrics());
  }();
  return kMetrics;
}

}  // namespace iofab
