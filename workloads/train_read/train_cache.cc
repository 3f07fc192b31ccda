#include "workloads/train_read/train_cache.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "harness/core/units.h"
#include "harness/fs/page_cache.h"
#include "harness/fs/path_kind.h"
#include "harness/fs/target.h"
#include "harness/store/posix_store.h"
#include "workloads/local_folder.h"

namespace iofab {
namespace {

// Two folder levels of at most 4096 entries each: a billion samples never crowd one folder.
uint64_t top_of(uint64_t sample) { return sample >> 24; }
uint64_t mid_of(uint64_t sample) { return sample >> 12; }

}  // namespace

uint64_t cached_dataset_bytes(const DatasetLayout& layout) {
  uint64_t bytes = 0;
  for (uint64_t s = 0; s < layout.num_samples(); ++s) bytes += cached_sample_bytes(layout.size_of(s));
  return bytes;
}

SampleCache::SampleCache(const PhaseContext& ctx, std::string dir, std::string run_name,
                         std::unique_ptr<Store> store, uint64_t rank_limit)
    : dir_(std::move(dir)),
      run_name_(std::move(run_name)),
      phase_(ctx.phase_name),
      location_(store->location() + "/" + ctx.phase_name),
      store_(std::move(store)),
      rank_limit_(rank_limit),
      rank_(ctx.comm.rank()),
      keep_(ctx.keep) {}

SampleCache::~SampleCache() {
  // The phase's way out without a call to remove() (an error, Ctrl-C): never leave the cache behind.
  remove().ignore_error();
}

Status SampleCache::open(const CacheTierOptions& opts, const PhaseContext& ctx,
                         std::unique_ptr<SampleCache>* out) {
  TargetInfo info;
  Status s = check_target(opts.dir, &info);
  if (!s.ok()) {
    std::string msg = s.message();
    if (msg.starts_with("target ")) msg.erase(0, 7);
    return Status::Invalid("cache_dir " + msg);
  }
  // Its folder would be the run folder itself (the target), or a folder iofab did not make in a
  // dataset_dir (which a later run would refuse to reuse).
  const bool is_dataset_dir = !opts.dataset_dir.empty() && same_file(info.path, opts.dataset_dir);
  if (info.path == ctx.target.path || is_dataset_dir) {
    return Status::Invalid("cache_dir " + info.path + " is the " +
                           (is_dataset_dir ? "dataset_dir" : "target") +
                           "; expected a folder of its own on node-local storage; nothing was written");
  }
  const uint64_t need = opts.need_bytes + local_room_margin(opts.need_bytes);
  if (need > info.free_bytes) {
    return Status::Invalid("cache_dir " + info.path + " has " + std::to_string(info.free_bytes) +
                           " bytes free (" + units::format_bytes(static_cast<double>(info.free_bytes)) +
                           "); the cache needs " + std::to_string(need) +
                           " bytes (the dataset's samples, or cache_size, plus a margin); set cache_size "
                           "lower or free space; nothing was written");
  }
  const std::string run_name = local_run_folder_name(ctx.run_dir_path);
  std::unique_ptr<Store> store;
  s = open_posix_store(info.path + "/" + run_name, true, &store);
  if (!s.ok()) return Status::IoError("cache_dir " + info.path + ": " + s.message());
  const int ranks = opts.host_ranks > 0 ? opts.host_ranks : 1;
  // From here a failure leaves nothing behind: the cache's destructor removes what was made.
  std::unique_ptr<SampleCache> cache(new SampleCache(ctx, info.path, run_name, std::move(store),
                                                     opts.host_limit / static_cast<uint64_t>(ranks)));
  // Held like the run folder, so `iofab clean` on cache_dir sees a live run's folder.
  s = cache->hold_.hold(info.path + "/" + run_name, ctx.keep);
  if (s.ok()) s = cache->store_->make_folder(ctx.phase_name);
  if (!s.ok()) return Status::IoError("cache_dir " + info.path + ": " + s.message());
  *out = std::move(cache);
  return Status::Ok();
}

std::string SampleCache::path_of(uint64_t sample) const {
  char name[96];
  std::snprintf(name, sizeof name, "t%03llx/m%06llx/s%llu", static_cast<unsigned long long>(top_of(sample)),
                static_cast<unsigned long long>(mid_of(sample)), static_cast<unsigned long long>(sample));
  return join_store_path(phase_, name);
}

Status SampleCache::make_folders(uint64_t sample) {
  const uint64_t mid = mid_of(sample);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (folders_.contains(mid)) return Status::Ok();
  }
  char top[16], both[40];
  std::snprintf(top, sizeof top, "t%03llx", static_cast<unsigned long long>(top_of(sample)));
  std::snprintf(both, sizeof both, "%s/m%06llx", top, static_cast<unsigned long long>(mid));
  // Another reader or local rank may make the same folders at the same time: make_folder takes one that
  // exists.
  Status s = store_->make_folder(join_store_path(phase_, top));
  if (s.ok()) s = store_->make_folder(join_store_path(phase_, both));
  if (!s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  folders_.insert(mid);
  return Status::Ok();
}

Status SampleCache::lookup(uint64_t sample, bool direct, StoreFile* out) {
  *out = StoreFile();
  const std::string path = path_of(sample);
  OpenOptions o;
  o.direct = direct;
  Status s = store_->open(path, o, out);
  if (s.ok()) return s;
  // Not cached: the common case of a first epoch. Told apart by a stat, off the hit path.
  EntryInfo info;
  if (store_->stat(path, &info).ok() && info.kind == EntryKind::kMissing) {
    *out = StoreFile();
    return Status::Ok();
  }
  if (direct && s.message().find("Invalid argument") != std::string::npos) {
    return Status::IoError("cache_dir: " + s.message() +
                           " (this filesystem does not support O_DIRECT; set direct: false or choose "
                           "another cache_dir)");
  }
  return Status::FromCode(s.code(), "cache_dir: " + s.message());
}

Status SampleCache::Fill::write(const void* bytes, uint64_t len, uint64_t offset) {
  const auto* p = static_cast<const unsigned char*>(bytes);
  while (len > 0) {
    const ssize_t n = pwrite(file_.fd(), p, len, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::FromErrno("cache_dir: writing " + file_.path(), n < 0 ? errno : EIO);
    p += n;
    len -= static_cast<uint64_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

Status SampleCache::begin(uint64_t sample, uint64_t size, Fill* fill, bool* started) {
  *started = false;
  const uint64_t bytes = cached_sample_bytes(size);
  uint64_t used = used_.load(std::memory_order_relaxed);
  do {
    if (used + bytes > rank_limit_) return Status::Ok();
  } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  Status s = make_folders(sample);
  // Named per rank: no two writers ever share a partial file, and a committed sample is never replaced
  // by a half-written one.
  fill->temp_ = path_of(sample) + ".fill-" + std::to_string(rank_);
  if (s.ok()) s = store_->create(fill->temp_, OpenOptions{}, &fill->file_);
  if (!s.ok()) {
    used_.fetch_sub(bytes, std::memory_order_relaxed);
    return Status::FromCode(s.code(), "cache_dir: " + s.message());
  }
  fill->sample_ = sample;
  fill->size_ = size;
  *started = true;
  return Status::Ok();
}

Status SampleCache::commit(Fill* fill) {
  Status s;
  // Zeros to the alignment, so an O_DIRECT read of the whole file stays inside it.
  if (ftruncate(fill->file_.fd(), static_cast<off_t>(cached_sample_bytes(fill->size_))) != 0) {
    s = Status::FromErrno("cache_dir: padding " + fill->temp_, errno);
  }
  fill->file_ = StoreFile();
  if (s.ok()) s = store_->commit(fill->temp_, path_of(fill->sample_));
  if (!s.ok()) {
    abandon(fill);
    return s;
  }
  std::lock_guard<std::mutex> lock(mu_);
  cached_.push_back(fill->sample_);
  fill->temp_.clear();
  return Status::Ok();
}

void SampleCache::abandon(Fill* fill) {
  if (fill->temp_.empty()) return;
  fill->file_ = StoreFile();
  // A partial file left behind goes with the folder at the end; nothing reads a ".fill-" name.
  store_->remove(fill->temp_).ignore_error();
  used_.fetch_sub(cached_sample_bytes(fill->size_), std::memory_order_relaxed);
  fill->temp_.clear();
}

Status SampleCache::cache_pass(bool drop, CacheCounts* out) {
  *out = CacheCounts{};
  std::vector<uint64_t> samples;
  {
    std::lock_guard<std::mutex> lock(mu_);
    samples = cached_;
  }
  for (uint64_t sample : samples) {
    StoreFile file;
    const std::string path = path_of(sample);
    Status s = store_->open(path, OpenOptions{}, &file);
    if (!s.ok()) return Status::FromCode(s.code(), "cache_dir: " + s.message());
    EntryInfo info;
    s = store_->stat(path, &info);
    if (!s.ok()) return Status::FromCode(s.code(), "cache_dir: " + s.message());
    if (drop) {
      Status d = drop_cached_pages(file.fd());
      if (!d.ok() && out->drop_error.empty()) out->drop_error = location_ + ": " + d.message();
    }
    uint64_t resident = 0;
    s = resident_bytes(file.fd(), info.size, &resident);
    if (!s.ok()) return s;
    out->files++;
    out->bytes += info.size;
    out->resident_bytes += resident;
  }
  return Status::Ok();
}

Status SampleCache::remove() {
  if (removed_ || keep_ || store_ == nullptr) return Status::Ok();
  removed_ = true;
  Status s = store_->remove_tree(phase_);
  store_.reset();
  // The folder goes with the last holder, empty only: another local rank, or another phase of the run,
  // may still have its cache in it.
  hold_.release_and_remove();
  if (!s.ok()) return Status::IoError("cache_dir: removing " + location_ + ": " + s.message());
  return Status::Ok();
}

}  // namespace iofab
