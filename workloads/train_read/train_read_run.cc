#include "workloads/train_read/train_read_run.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <random>

#include "harness/comm/agree.h"
#include "harness/comm/local_rank.h"
#include "harness/comm/rank_gather.h"
#include "harness/core/units.h"
#include "harness/engines/io_driver.h"
#include "harness/fs/diskstats.h"
#include "harness/fs/read_only_mount.h"
#include "harness/fs/target.h"
#include "harness/gpu/batch_copy.h"
#include "harness/phase/reducibility_params.h"
#include "harness/phase/request_metrics.h"
#include "harness/store/posix_store.h"
#include "workloads/dataset/dataset_manifest.h"
#include "workloads/train_read/sampler.h"
#include "workloads/train_read/train_cache.h"
#include "workloads/train_read/train_cache_results.h"
#include "workloads/train_read/train_read_results.h"
#include "workloads/train_read/train_windows.h"

namespace iofab {
namespace {

using nlohmann::json;

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

// The block device behind a folder, "" when there is none (a network or memory filesystem).
std::string block_device_of(const std::string& path) {
  TargetInfo info;
  return describe_target(path, &info).ok() ? info.block_device : "";
}

class TrainReadRun {
 public:
  TrainReadRun(const TrainReadParams& p, const EngineFactory& make, PhaseContext& ctx)
      : p_(p),
        make_(make),
        ctx_(ctx),
        comm_(ctx.comm),
        rank_(ctx.comm.rank()),
        user_dir_(!p.dataset_dir.empty()),
        dataset_path_(user_dir_ ? p.dataset_dir : ctx.run_dir_path + "/" + ctx.phase_name),
        layout_(p.dataset),
        root_(user_dir_ ? "" : ctx.phase_name),
        data_(join_store_path(root_, kDataFolder)),
        store_(user_dir_ ? nullptr : ctx.store) {}

  Status run(PhaseResult* result) {
    result_ = result;
    window_end_ns_ = now_ns();
    Status st = agree(comm_, find_local_rank(comm_, &where_));
    local_.host = where_.host;
    if (st.ok()) st = open_dataset_folder();
    if (st.ok()) st = decide_dataset();
    if (st.ok()) st = decide_cache_exclusion();
    if (st.ok() && !p_.cache_dir.empty()) st = open_cache_tier();
    generate_ = st.ok() && decision_.generate;
    // Progress is per rank: its share of the generation and of every epoch.
    ctx_.progress.total_bytes.store(
        (p_.epochs * layout_.sample_bytes() + (generate_ ? layout_.total_bytes() : 0)) / share());
    if (st.ok()) st = generate_ ? generate_dataset() : check_reused_dataset();
    make_copier();
    if (st.ok()) st = make_loader();
    // Before describe_reads takes the set-up's requests: on an object store the listing is set-up too.
    if (st.ok()) st = list_dataset();
    describe_reads();
    if (ctx_.ready_to_start) ctx_.ready_to_start();
    if (st.ok()) st = run_epochs();
    st.update(tear_down());
    local_.status = st;
    std::vector<RankReport> ranks;
    if (Status g = gather_to_root(comm_, local_, &ranks); !g.ok()) return g;
    if (rank_ != 0) return st;
    Status worst = st;
    summarize(ranks, result, &worst);
    return worst;
  }

 private:
  uint64_t share() const { return static_cast<uint64_t>(comm_.size()); }

  bool drop_before(uint64_t epoch) const {
    return p_.drop_cache == DropCache::kEveryEpoch || (p_.drop_cache == DropCache::kFirstEpoch && epoch == 0);
  }

  // The dataset's folder: the phase's own in the run's store, or the user's dataset_dir, a store of its own.
  Status open_dataset_folder() {
    Status mine;
    if (!user_dir_) {
      mine = store_ != nullptr ? store_->make_folder(root_)
                               : Status::Internal("train_read: the run has no store");
    } else if (rank_ == 0) {
      mine = open_dataset_store(p_.dataset_dir, true, &dir_store_);
    }
    Status st = agree(comm_, mine);
    if (st.ok() && user_dir_) {
      st = agree(comm_, rank_ == 0 ? Status::Ok() : open_dataset_store(p_.dataset_dir, false, &dir_store_));
    }
    if (user_dir_) store_ = dir_store_.get();
    return st;
  }

  // Rank 0 decides: reuse, or generate (fresh, or over a stale iofab dataset); a folder with anything else
  // is refused. Every rank gets the decision.
  Status decide_dataset() {
    Status st = agree(comm_, rank_ == 0 ? inspect_dataset_on_rank0() : Status::Ok());
    if (st.ok()) st = agree(comm_, broadcast_value(comm_, &decision_, 0, "dataset decision"));
    return st;
  }

  Status inspect_dataset_on_rank0() {
    DatasetDirState state = DatasetDirState::kEmpty;
    std::string why;
    Status mine;
    if (user_dir_) {
      // Held for the whole phase, so no other run regenerates under us.
      mine = lock_dataset_dir(*store_, root_, dataset_path_, &lock_);
      if (mine.ok() && lock_ == nullptr) {
        prepare_notes_.push_back(
            "its filesystem does not support flock: another run using it at the same time would not be kept "
            "out");
      }
    }
    if (mine.ok()) mine = inspect_dataset_dir(*store_, root_, layout_, &state, &why, &ctx_.stop);
    if (mine.ok() && state == DatasetDirState::kForeign) {
      remove_dataset_lock(*store_, root_, &lock_);  // a folder refused is left as it was found
      return Status::Invalid("dataset_dir " + dataset_path_ + " " + why +
                             "; iofab generates only into an empty folder or one it made: choose another");
    }
    decision_.order_seed = p_.dataset.seed;
    if (p_.file_shuffle == Shuffle::kRandom || p_.sample_shuffle == Shuffle::kRandom) {
      std::random_device rd;
      decision_.order_seed = (static_cast<uint64_t>(rd()) << 32) ^ rd();
    }
    decision_.generate = state == DatasetDirState::kEmpty || state == DatasetDirState::kStale;
    decision_.why = state == DatasetDirState::kStale ? why : "";
    if (mine.ok() && decision_.generate && on_read_only_mount(p_.dataset_dir)) {
      // Read-only: a complete, matching dataset is read as it is; anything else cannot be made there.
      remove_dataset_lock(*store_, root_, &lock_);
      return Status::Invalid("dataset_dir " + dataset_path_ + " is on a read-only filesystem and holds no " +
                             "complete dataset matching the phase" + (why.empty() ? "" : " (" + why + ")") +
                             "; generate it on a writable mount first, or choose another dataset_dir");
    }
    uint64_t free_bytes = 0;
    if (mine.ok() && user_dir_ && decision_.generate && store_->free_space(&free_bytes).ok() &&
        free_bytes < layout_.total_bytes() + (64ULL << 20)) {
      return Status::Invalid("dataset_dir " + dataset_path_ + " has " + std::to_string(free_bytes) +
                             " bytes free; the dataset needs " + std::to_string(layout_.total_bytes()) +
                             " bytes plus 64 MiB; nothing was written");
    }
    return mine;
  }

  // How page-cache hits are kept out of the epochs, the same on every rank: O_DIRECT; no page cache (an
  // object store); a dataset of at least 5x the hosts' memory (MLPerf's rule); or each sample's pages
  // dropped once used (drop_after_use). "none": buffered, smaller, and not dropped after use (the drop
  // before each epoch, drop_cache, still holds).
  Status decide_cache_exclusion() {
    std::vector<double> memory;
    Status st = comm_.all_gather(where_.rank == 0 ? static_cast<double>(host_memory_bytes()) : 0.0, &memory);
    if (!st.ok()) return st;
    double hosts_memory = 0;
    for (double m : memory) hosts_memory += m;
    const auto dataset = static_cast<double>(layout_.total_bytes());
    const bool large = hosts_memory > 0 && dataset >= 5 * hosts_memory;
    const bool page_cache = dataset_has_page_cache(*store_);
    drop_after_use_ =
        page_cache && !p_.direct &&
        (p_.drop_after_use == DropAfterUse::kOn || (p_.drop_after_use == DropAfterUse::kAuto && !large));
    const char* method = !page_cache       ? "object_store"
                         : p_.direct       ? "direct"
                         : drop_after_use_ ? "drop_after_use"
                         : large           ? "dataset_5x_memory"
                                           : "none";
    cache_exclusion_ = {{"method", method},
                        {"drop_after_use", drop_after_use_},
                        {"dataset_bytes", layout_.total_bytes()},
                        {"hosts_memory_bytes", hosts_memory},
                        {"dataset_over_5x_memory", large}};
    return Status::Ok();
  }

  // The cache tier, on every rank: the phase's folder in this host's cache_dir, shared by its ranks. Made
  // before the dataset, so a cache_dir without room refuses the phase before anything is written.
  Status open_cache_tier() {
    CacheTierOptions co;
    co.dir = p_.cache_dir;
    co.host_ranks = where_.size;
    co.dataset_dir = p_.dataset_dir;
    // No cache_size: no share to keep to, only the free space for the whole dataset.
    co.host_limit = p_.cache_size > 0 ? p_.cache_size : UINT64_MAX;
    co.need_bytes = std::min(co.host_limit, cached_dataset_bytes(layout_));
    const Status st = agree(comm_, SampleCache::open(co, ctx_, &cache_tier_));
    cache_device_ = block_device_of(p_.cache_dir);
    return st;
  }

  // Generation, timed on its own from a barrier to the agreement that every rank finished.
  Status generate_dataset() {
    Status st =
        agree(comm_, rank_ == 0 ? prepare_dataset_dir(*store_, root_, layout_, &prepare_notes_, &ctx_.stop)
                                : Status::Ok());
    if (st.ok()) st = comm_.barrier();
    if (!st.ok()) return st;
    const uint64_t g0 = now_ns();
    Status mine = store_->make_folder(data_);
    GenerateOptions go;
    go.rank = rank_;
    go.ranks = comm_.size();
    go.threads = p_.read_threads;
    go.stop = &ctx_.stop;
    go.progress = &ctx_.progress.done_bytes;
    uint64_t written = 0;
    if (mine.ok()) mine = generate_dataset_part(*store_, data_, layout_, go, &written);
    st = agree(comm_, mine);
    generate_seconds_ = static_cast<double>(now_ns() - g0) * 1e-9;
    if (!st.ok()) return st;
    return agree(comm_,
                 rank_ == 0 ? complete_manifest(*store_, root_, layout_, generate_seconds_) : Status::Ok());
  }

  Status check_reused_dataset() {
    EntryInfo info;
    Status mine = store_->stat(data_, &info);
    if (mine.ok() && info.kind != EntryKind::kFolder) {
      mine = Status::FromErrno("open " + dataset_path_ + "/data",
                               info.kind == EntryKind::kMissing ? ENOENT : ENOTDIR);
    }
    return agree(comm_, mine);
  }

  // The GPU copier when asked for and possible; gpu_ says which, and why not.
  void make_copier() {
    gpu_ = {{"requested", p_.to_gpu}, {"used", false}};
    if (!p_.to_gpu) return;
    Status cs = BatchCopier::create(p_.prefetch + 1, p_.batch_size * layout_.max_sample_size(), where_.rank,
                                    &copier_);
    if (cs.ok()) {
      gpu_["used"] = true;
      gpu_["device"] = copier_->device();
    } else {
      gpu_["reason"] = cs.message();
    }
  }

  Status make_loader() {
    // The engine: the one injected (tests), else the store's own (s3 on an object store) or the one asked
    // for.
    EngineFactory make = make_;
    Status engine = Status::Ok();
    if (!make) {
      std::string name;
      engine = engine_for_store(*store_, p_.engine, &name);
      make = [this, name](const EngineOptions& eo, std::unique_ptr<Engine>* out) {
        return make_phase_engine(ctx_, name, eo, out);
      };
    }
    LoaderConfig lc;
    lc.read_threads = p_.read_threads;
    lc.queue_depth = p_.queue_depth;
    lc.prefetch = p_.prefetch;
    lc.compute_ns = static_cast<uint64_t>(std::llround(p_.compute_per_batch * 1e9));
    lc.direct = p_.direct;
    lc.max_request = p_.read_size;
    lc.drop_after_use = drop_after_use_;
    lc.map_advice = p_.madvise;
    lc.series_interval_ns = p_.series_interval_ns;
    lc.cache_tier = !p_.cache_dir.empty();
    return agree(comm_, engine.ok()
                            ? TrainLoader::create(lc, layout_, *store_, data_, make, copier_.get(), &loader_)
                            : engine);
  }

  // What the epochs read through and where their bytes are counted.
  void describe_reads() {
    // An object store's requests so far (the dataset's generation) apart from the epochs' reads.
    local_.objects = store_ != nullptr && !dataset_has_page_cache(*store_);
    if (store_ != nullptr) local_.generate_requests = take_request_stats_json(*store_);
    if (loader_ && cache_tier_) loader_->use_cache(cache_tier_.get());
    // In a concurrent group: the loader's timeline, split by the group's windows at the end.
    if (loader_ && ctx_.windows != nullptr) loader_->record_marks(&marks_);
    if (loader_) local_.engine = loader_->engine_name();
    local_.verified = loader_ ? loader_->verifies() : false;
    // The device the dataset lives on, for the bytes it really read.
    device_ = user_dir_ ? block_device_of(p_.dataset_dir) : ctx_.target.block_device;
    reads_disk_ = where_.rank == 0 && !device_.empty() && read_disk_counters(device_).has_value();
    local_.device = device_;
    local_.tier_device = cache_device_;
    order_.num_samples = layout_.num_samples();
    order_.samples_per_file = layout_.samples_in(0);
    order_.reader = p_.reader;
    order_.kind = p_.order;
    order_.file_shuffle = p_.file_shuffle;
    order_.sample_shuffle = p_.sample_shuffle;
    order_.shuffle_buffer = p_.shuffle_buffer;
    // tf.data reads num_parallel_reads files at once, and DLIO passes it read_threads.
    order_.interleave = p_.read_threads;
    order_.seed = decision_.order_seed;
    local_.memory_bytes = host_memory_bytes();
    reads_cache_disk_ =
        where_.rank == 0 && !cache_device_.empty() && read_disk_counters(cache_device_).has_value();
    if (p_.cache_source_epoch) ctx_.progress.total_bytes.fetch_add(layout_.sample_bytes() / share());
  }

  // A files dataset's tree listed before the first epoch, as DLIO builds its file list at start-up: timed,
  // the first part of the dataset's startup (the first epoch's wait for its first batch is the rest).
  Status list_dataset() {
    if (layout_.spec().layout != DatasetLayoutKind::kFiles) return Status::Ok();
    const uint64_t t0 = now_ns();
    uint64_t files = 0;
    const Status s = list_tree("", &files);
    local_.list_ns = now_ns() - t0;
    local_.listed = s.ok();
    local_.listed_files = files;
    return agree(comm_, s);
  }

  // Counts the files below data_/rel, entering the dataset's own folders (no stat: a name says which).
  Status list_tree(const std::string& rel, uint64_t* files) {
    std::vector<std::string> names;
    if (Status s = store_->list(rel.empty() ? data_ : join_store_path(data_, rel), &names); !s.ok()) return s;
    for (const std::string& n : names) {
      const std::string child = rel.empty() ? n : rel + "/" + n;
      if (!layout_.names().names_folder(child)) {
        ++*files;
      } else if (Status s = list_tree(child, files); !s.ok()) {
        return s;
      }
    }
    return Status::Ok();
  }

  // Epochs 0 .. epochs-1, then with a cache tier the source-only epoch (its own permutation, the next
  // epoch's), read with the cache out of the path. Following a group's clock: epochs until it ends.
  Status run_epochs() {
    const bool follows = ctx_.until != nullptr;
    const uint64_t last = p_.epochs + (p_.cache_source_epoch && cache_tier_ != nullptr && !follows ? 1 : 0);
    Status st;
    for (uint64_t epoch = 0; st.ok() && (follows || epoch < last); ++epoch) {
      if (follows && epoch > 0) {
        bool clock_running = false;
        st = agree_clock_running(comm_, *ctx_.until, &clock_running);
        if (!st.ok() || !clock_running) break;
      }
      st = run_epoch(epoch, !follows && epoch == p_.epochs);
    }
    return st;
  }

  Status run_epoch(uint64_t epoch, bool source_only) {
    if (source_only) loader_->use_cache(nullptr);
    // Untimed: drop the pages meant to be cold, measure what is resident, draw the plan. The source-only
    // epoch measures the source as epoch 0 did: cold unless the suite never drops.
    const bool drop = source_only ? p_.drop_cache != DropCache::kNever : drop_before(epoch);
    CacheCounts cache;
    Status mine = dataset_cache_pass(*store_, data_, layout_, static_cast<uint64_t>(where_.rank),
                                     static_cast<uint64_t>(where_.size), drop, &cache);
    CacheCounts tier;
    if (mine.ok() && cache_tier_ != nullptr && !source_only) mine = cache_tier_->cache_pass(drop, &tier);
    const BatchPlan plan =
        plan_ordered_epoch(order_, epoch, rank_, comm_.size(), p_.batch_size, p_.drop_last);
    uint64_t planned_sum = 0;
    for (uint32_t s : plan.samples) planned_sum += sample_fingerprint(s);
    if (mine.ok() && ctx_.stop.load()) mine = Status::Interrupted();
    Status st = agree(comm_, mine);
    if (!st.ok()) return st;

    const auto disk0 = reads_disk_ ? read_disk_counters(device_) : std::nullopt;
    const auto tier0 = reads_cache_disk_ ? read_disk_counters(cache_device_) : std::nullopt;
    if (st = comm_.barrier(); !st.ok()) return st;
    EpochStats stats(p_.series_interval_ns);
    // Before the first epoch: the dataset generated (generate_seconds) or checked, the loader made, the
    // tree listed; before each: its cache pass and plan.
    const uint64_t t0 = now_ns();
    add_setup(result_, window_end_ns_, t0);
    Status rs = loader_->run_epoch(plan, t0, ctx_.stop, &ctx_.progress.done_bytes, &stats);
    window_end_ns_ = now_ns();
    const auto disk1 = reads_disk_ ? read_disk_counters(device_) : std::nullopt;
    const auto tier1 = reads_cache_disk_ ? read_disk_counters(cache_device_) : std::nullopt;

    EpochRecord& rec = (source_only ? local_.source_epochs : local_.epochs).emplace_back();
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

  // The other phases' windows, then the teardown: engines before the files they read, the lock before the
  // store, then the dataset unless it is to stay.
  Status tear_down() {
    // Once every phase that posts windows has ended: a window still to come would change the split.
    if (ctx_.windows != nullptr) {
      bool complete = false;
      const std::vector<TimeWindow> windows = ctx_.windows->wait_all(ctx_.stop, &complete);
      local_.windows = split_by_windows(marks_, windows, complete);
    }
    loader_.reset();
    // The readers' engines are gone: the epochs' request figures are whole.
    if (store_ != nullptr) local_.requests = take_request_stats_json(*store_);
    copier_.reset();
    lock_.reset();
    dir_store_.reset();
    Status st = comm_.barrier();
    // After the barrier: every local rank is done with the folder they share.
    if (cache_tier_ != nullptr) {
      cache_location_ = cache_tier_->location();
      cache_limit_ = cache_tier_->rank_limit();
      st.update(cache_tier_->remove());
      cache_tier_.reset();
    }
    if (!user_dir_ && !ctx_.keep && rank_ == 0 && store_ != nullptr) st.update(store_->remove_tree(root_));
    return st;
  }

  // Rank 0: every rank's report into result.
  void summarize(const std::vector<RankReport>& ranks, PhaseResult* result, Status* worst) {
    summarize_train_read(p_, ranks, layout_, result, worst);
    WindowSplit split;
    for (const auto& r : ranks) split.merge(r.windows);
    report_window_split(split, result);
    if (ctx_.until != nullptr) result->details["follows_clock"] = {{"epochs", ranks.front().epochs.size()}};
    // A reused dataset matched the spec, reducibility included: this is what the data on the target hold.
    result->details["data_reducibility"] = reducibility_details(p_.dataset.reduce, kRecordAlignment);
    if (!p_.cache_dir.empty()) {
      summarize_cache_tier(p_, ranks, layout_, result, worst);
      json& tier = result->details["cache_tier"];
      tier["path"] = cache_location_;
      tier["rank_limit_bytes"] = cache_limit_ == UINT64_MAX ? json(nullptr) : json(cache_limit_);
      tier["kept"] = ctx_.keep;
      tier["device"] = cache_device_.empty() ? json(nullptr) : json(cache_device_);
      tier["devices"] = tier_devices(ranks);
    }
    summarize_train_requests(ranks, result);
    summarize_dataset_startup(ranks, layout_, result);
    describe_dataset(result);
    warn(result);
  }

  void describe_dataset(PhaseResult* result) const {
    auto& d = result->details;
    d["dataset"] = {{"path", dataset_path_},
                    {"origin", generate_ ? "generated" : "reused"},
                    {"regenerated_because", decision_.why},
                    {"kept", user_dir_ || ctx_.keep},
                    {"layout", layout_name(p_.dataset.layout)},
                    {"files", layout_.num_files()},
                    {"bytes", layout_.total_bytes()},
                    {"sample_bytes", layout_.sample_bytes()},
                    {"max_sample_size", layout_.max_sample_size()},
                    {"spec", layout_.spec().to_json()},
                    {"generate_seconds", generate_seconds_},
                    {"scale", p_.scale},
                    {"full_num_samples", p_.full_num_samples}};
    d["to_gpu"] = gpu_;
    d["cache_exclusion"] = cache_exclusion_;
    d["read_size"] = p_.read_size;
    d["order"] = {{"kind", order_kind_name(p_.order)},
                  {"reader", reader_kind_name(p_.reader)},
                  {"file_shuffle", shuffle_name(p_.file_shuffle)},
                  {"sample_shuffle", shuffle_name(p_.sample_shuffle)},
                  {"seed", decision_.order_seed}};
    if (p_.reader == ReaderKind::kStream) {
      d["order"]["shuffle_buffer"] = p_.shuffle_buffer;
      d["order"]["files_at_once"] = p_.read_threads;
    }
    result->metrics["generate_seconds"] = generate_seconds_;
  }

  void warn(PhaseResult* result) const {
    for (const auto& n : prepare_notes_)
      result->warnings.push_back("dataset_dir " + dataset_path_ + ": " + n);
    if (p_.to_gpu && !gpu_["used"].get<bool>()) {
      result->warnings.push_back("to_gpu skipped: " + gpu_.value("reason", std::string("unknown")) +
                                 "; batches were read but not copied to a device");
    }
    const uint64_t mem = host_memory_bytes();
    if (p_.direct || drop_after_use_ || local_.objects || mem == 0 || layout_.total_bytes() >= mem) return;
    result->warnings.push_back(
        "the dataset (" + units::format_bytes(static_cast<double>(layout_.total_bytes())) +
        ") is smaller than this host's memory (" + units::format_bytes(static_cast<double>(mem)) +
        ") and reads are buffered (direct: false): figures may come from the page cache, not the storage; "
        "see each epoch's cache_resident_fraction and device_read_bytes");
  }

  const TrainReadParams& p_;
  const EngineFactory& make_;
  PhaseContext& ctx_;
  Comm& comm_;
  const int rank_;
  const bool user_dir_;
  const std::string dataset_path_;
  const DatasetLayout layout_;
  const std::string root_;  // the dataset's folder in its store
  const std::string data_;  // its data/ folder
  RankReport local_;
  LocalRank where_;
  std::unique_ptr<Store> dir_store_;  // a dataset_dir's
  Store* store_ = nullptr;            // the dataset's: the run's, or dir_store_
  std::unique_ptr<StoreLock> lock_;   // rank 0, a dataset_dir: held for the whole phase
  std::vector<std::string> prepare_notes_;
  DatasetDecision decision_;
  std::unique_ptr<SampleCache> cache_tier_;
  std::string cache_device_;
  std::string cache_location_;
  uint64_t cache_limit_ = 0;
  bool generate_ = false;
  double generate_seconds_ = 0;
  PhaseResult* result_ = nullptr;  // this rank's: its setup_seconds, added up before each epoch
  uint64_t window_end_ns_ = 0;     // the phase's start, then the last epoch's end
  std::unique_ptr<BatchCopier> copier_;
  json gpu_;
  std::unique_ptr<TrainLoader> loader_;
  LoaderMarks marks_;
  std::string device_;
  bool reads_disk_ = false;
  bool reads_cache_disk_ = false;
  EpochOrder order_;
  bool drop_after_use_ = false;
  json cache_exclusion_;
};

}  // namespace

Status run_train_read(const TrainReadParams& params, const EngineFactory& make, PhaseContext& ctx,
                      PhaseResult* result) {
  TrainReadRun run(params, make, ctx);
  return run.run(result);
}

}  // namespace iofab
