#include "workloads/train_read/train_read_run.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "harness/comm/agree.h"
#include "harness/comm/local_rank.h"
#include "harness/comm/rank_gather.h"
#include "harness/core/units.h"
#include "harness/engines/io_driver.h"
#include "harness/fs/diskstats.h"
#include "harness/fs/target.h"
#include "harness/phase/reducibility_params.h"
#include "harness/phase/request_metrics.h"
#include "workloads/train_read/torch_loader_profile.h"
#include "workloads/train_read/torch_loader_results.h"
#include "workloads/train_read/train_cache.h"
#include "workloads/train_read/train_cache_results.h"
#include "workloads/train_read/train_dataset.h"
#include "workloads/train_read/train_epochs.h"
#include "workloads/train_read/train_read_results.h"
#include "workloads/train_read/train_readers.h"
#include "workloads/train_read/train_windows.h"

namespace iofab {
namespace {

using nlohmann::json;

uint64_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

// The block device behind a folder, "" when there is none (a network or memory filesystem).
std::string block_device_of(const std::string& path) {
  TargetInfo info;
  return describe_target(path, &info).ok() ? info.block_device : "";
}

// The run's steps and what joins them: the dataset (TrainDataset, train_dataset.h), how page-cache hits
// are kept out, the cache tier, the copier and the loader (TrainReaders, train_readers.h), the epochs
// (TrainEpochs, train_epochs.h), the teardown, and on rank 0 the summary of every rank's report
// (train_read_results.h).
class TrainReadRun {
 public:
  TrainReadRun(const TrainReadParams& p, const EngineFactory& make, PhaseContext& ctx)
      : p_(p), ctx_(ctx), comm_(ctx.comm), rank_(ctx.comm.rank()), dataset_(p, ctx), readers_(p, make, ctx) {}

  Status run(PhaseResult* result) {
    result_ = result;
    start_ns_ = now_ns();
    Status st = agree(comm_, find_local_rank(comm_, &where_));
    local_.host = where_.host;
    if (st.ok()) st = dataset_.open_folder();
    if (st.ok()) st = dataset_.decide();
    if (st.ok()) st = decide_cache_exclusion();
    if (st.ok() && !p_.cache_dir.empty()) st = open_cache_tier();
    generate_ = st.ok() && dataset_.decision().generate;
    // Progress is per rank: its share of the generation and of every epoch.
    const uint64_t read_epochs = p_.epochs + (ceiling() ? 1 : 0);
    const DatasetLayout& layout = dataset_.layout();
    ctx_.progress.total_bytes.store(
        (read_epochs * layout.sample_bytes() + (generate_ ? layout.total_bytes() : 0)) / share());
    if (st.ok()) st = generate_ ? dataset_.generate() : dataset_.check_reused();
    readers_.make_copier(dataset_.layout(), where_.rank);
    if (st.ok()) st = readers_.make_loader(dataset_, drop_after_use_);
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
  bool pytorch() const { return p_.loader == LoaderKind::kPytorch; }
  // loader pytorch: the native loader's epoch over the same dataset after the profile's (the storage's
  // ceiling), unless storage_ceiling is false.
  bool ceiling() const { return pytorch() && p_.torch.storage_ceiling && ctx_.until == nullptr; }

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
    const auto dataset = static_cast<double>(dataset_.layout().total_bytes());
    const bool large = hosts_memory > 0 && dataset >= 5 * hosts_memory;
    const bool page_cache = dataset_has_page_cache(*dataset_.store());
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
                        {"dataset_bytes", dataset_.layout().total_bytes()},
                        {"hosts_memory_bytes", hosts_memory},
                        {"dataset_over_5x_memory", large}};
    return Status::Ok();
  }

  // before the dataset, so a cache_dir without room refuses the phase before anything is written.
  Status open_cache_tier() {
    CacheTierOptions co;
    co.dir = p_.cache_dir;
    co.host_ranks = where_.size;
    co.dataset_dir = p_.dataset_dir;
    // No cache_size: no share to keep to, only the free space for the whole dataset.
    co.host_limit = p_.cache_size > 0 ? p_.cache_size : UINT64_MAX;
    co.need_bytes = std::min(co.host_limit, cached_dataset_bytes(dataset_.layout()));
    const Status st = agree(comm_, SampleCache::open(co, ctx_, &cache_tier_));
    cache_device_ = block_device_of(p_.cache_dir);
    return st;
  }

  // What the epochs read through and where their bytes are counted.
  void describe_reads() {
    reads_.dataset = &dataset_;
    reads_.where = where_;
    reads_.loader = readers_.loader();
    reads_.profile = readers_.profile();
    reads_.cache_tier = cache_tier_.get();
    // An object store's requests so far (the dataset's generation) apart from the epochs' reads.
    local_.objects = dataset_.store() != nullptr && !dataset_has_page_cache(*dataset_.store());
    if (dataset_.store() != nullptr) local_.generate_requests = take_request_stats_json(*dataset_.store());
    TrainLoader* loader = readers_.loader();
    if (loader != nullptr && cache_tier_) loader->use_cache(cache_tier_.get());
    // In a concurrent group: the loader's timeline, split by the group's windows at the end.
    if (loader != nullptr && ctx_.windows != nullptr) loader->record_marks(&marks_);
    if (loader != nullptr) local_.engine = loader->engine_name();
    local_.verified = loader != nullptr ? loader->verifies() : false;
    // The device the dataset lives on, for the bytes it really read.
    reads_.device = dataset_.user_dir() ? block_device_of(p_.dataset_dir) : ctx_.target.block_device;
    reads_.reads_disk =
        where_.rank == 0 && !reads_.device.empty() && read_disk_counters(reads_.device).has_value();
    local_.device = reads_.device;
    local_.tier_device = cache_device_;
    reads_.cache_device = cache_device_;
    reads_.order.num_samples = dataset_.layout().num_samples();
    reads_.order.samples_per_file = dataset_.layout().samples_in(0);
    reads_.order.reader = p_.reader;
    reads_.order.kind = p_.order;
    reads_.order.file_shuffle = p_.file_shuffle;
    reads_.order.sample_shuffle = p_.sample_shuffle;
    reads_.order.shuffle_buffer = p_.shuffle_buffer;
    // tf.data reads num_parallel_reads files at once, and DLIO passes it read_threads.
    reads_.order.interleave = p_.read_threads;
    reads_.order.seed = dataset_.decision().order_seed;
    local_.memory_bytes = host_memory_bytes();
    reads_.reads_cache_disk = where_.rank == 0 && !reads_.cache_device.empty() &&
                              read_disk_counters(reads_.cache_device).has_value();
    if (p_.cache_source_epoch)
      ctx_.progress.total_bytes.fetch_add(dataset_.layout().sample_bytes() / share());
  }

  // A files dataset's tree listed before the first epoch (TrainDataset::list): the first part of the
  // dataset's startup (the first epoch's wait for its first batch is the rest).
  Status list_dataset() {
    DatasetListing l;
    const Status s = dataset_.list(&l);
    local_.list_ns = l.ns;
    local_.listed = l.listed;
    local_.listed_files = l.files;
    return s;
  }

  // The epochs, then with a DataLoader profile the storage ceiling's epoch.
  Status run_epochs() {
    TrainEpochs epochs(p_, ctx_, reads_, result_, start_ns_);
    Status st = epochs.run(&local_);
    if (st.ok() && ceiling()) st = epochs.run_ceiling(&local_);
    return st;
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
    if (readers_.profile() != nullptr) local_.loader_profile = readers_.profile()->counters().to_json();
    readers_.close_loaders();
    // The readers' engines are gone: the epochs' request figures are whole.
    if (dataset_.store() != nullptr) local_.requests = take_request_stats_json(*dataset_.store());
    readers_.close_copier();
    dataset_.close();
    Status st = comm_.barrier();
    // After the barrier: every local rank is done with the folder they share.
    if (cache_tier_ != nullptr) {
      cache_location_ = cache_tier_->location();
      cache_limit_ = cache_tier_->rank_limit();
      st.update(cache_tier_->remove());
      cache_tier_.reset();
    }
    st.update(dataset_.remove_unless_kept());
    return st;
  }

  // Rank 0: every rank's report into result.
  void summarize(const std::vector<RankReport>& ranks, PhaseResult* result, Status* worst) {
    summarize_train_read(p_, ranks, dataset_.layout(), result, worst);
    WindowSplit split;
    for (const auto& r : ranks) split.merge(r.windows);
    report_window_split(split, result);
    if (ctx_.until != nullptr) result->details["follows_clock"] = {{"epochs", ranks.front().epochs.size()}};
    // A reused dataset matched the spec, reducibility included: this is what the data on the target hold.
    result->details["data_reducibility"] = reducibility_details(p_.dataset.reduce, kRecordAlignment);
    if (!p_.cache_dir.empty()) {
      summarize_cache_tier(p_, ranks, dataset_.layout(), result, worst);
      json& tier = result->details["cache_tier"];
      tier["path"] = cache_location_;
      tier["rank_limit_bytes"] = cache_limit_ == UINT64_MAX ? json(nullptr) : json(cache_limit_);
      tier["kept"] = ctx_.keep;
      tier["device"] = cache_device_.empty() ? json(nullptr) : json(cache_device_);
      tier["devices"] = tier_devices(ranks);
    }
    summarize_train_requests(ranks, result);
    if (pytorch()) {
      summarize_loader_profile(p_, ranks,
                               {.calibration = &readers_.calibration(),
                                .costs = &readers_.costs(),
                                .costs_from_file = readers_.costs_from_file(),
                                .ceiling_engine = ranks.front().engine},
                               result);
    }
    summarize_dataset_startup(ranks, dataset_.layout(), result);
    describe_dataset(result);
    warn(result);
  }

  void describe_dataset(PhaseResult* result) const {
    auto& d = result->details;
    d["dataset"] = dataset_.details(generate_);
    d["to_gpu"] = readers_.gpu_details();
    d["cache_exclusion"] = cache_exclusion_;
    d["read_size"] = p_.read_size;
    d["order"] = {{"kind", order_kind_name(p_.order)},
                  {"reader", reader_kind_name(p_.reader)},
                  {"file_shuffle", shuffle_name(p_.file_shuffle)},
                  {"sample_shuffle", shuffle_name(p_.sample_shuffle)},
                  {"seed", dataset_.decision().order_seed}};
    if (p_.reader == ReaderKind::kStream) {
      d["order"]["shuffle_buffer"] = p_.shuffle_buffer;
      d["order"]["files_at_once"] = p_.read_threads;
    }
    result->metrics["generate_seconds"] = dataset_.generate_seconds();
  }

  void warn(PhaseResult* result) const {
    dataset_.warn(result);
    const json& gpu = readers_.gpu_details();
    if (p_.to_gpu && !gpu["used"].get<bool>()) {
      result->warnings.push_back("to_gpu skipped: " + gpu.value("reason", std::string("unknown")) +
                                 "; batches were read but not copied to a device");
    }
    const uint64_t mem = host_memory_bytes();
    if (p_.direct || drop_after_use_ || local_.objects || mem == 0 || dataset_.layout().total_bytes() >= mem)
      return;
    result->warnings.push_back(
        "the dataset (" + units::format_bytes(static_cast<double>(dataset_.layout().total_bytes())) +
        ") is smaller than this host's memory (" + units::format_bytes(static_cast<double>(mem)) +
        ") and reads are buffered (direct: false): figures may come from the page cache, not the storage; "
        "see each epoch's cache_resident_fraction and device_read_bytes");
  }

  const TrainReadParams& p_;
  PhaseContext& ctx_;
  Comm& comm_;
  const int rank_;
  TrainDataset dataset_;
  TrainReaders readers_;
  RankReport local_;
  LocalRank where_;
  std::unique_ptr<SampleCache> cache_tier_;
  std::string cache_device_;
  std::string cache_location_;
  uint64_t cache_limit_ = 0;
  bool generate_ = false;
  PhaseResult* result_ = nullptr;  // this rank's: its setup_seconds, added up before each epoch
  uint64_t start_ns_ = 0;          // the phase's start
  LoaderMarks marks_;
  EpochReaders reads_;
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
