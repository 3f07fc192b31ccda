#include "workloads/train_read/train_loader.h"

#include <time.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "harness/comm/wire_fields.h"
#include "harness/engines/io_pump.h"
#include "harness/engines/mixed_engine.h"
#include "harness/fs/page_cache.h"
#include "harness/gpu/batch_copy.h"
#include "workloads/train_read/train_windows.h"

namespace iofab {

using nlohmann::json;

namespace {

constexpr auto kPoll = std::chrono::milliseconds(20);  // how often waiters look at the stop flag
constexpr uint64_t kSleepSlice = 50'000'000;           // compute sleeps in slices this long, to see a stop

// Sleeps until deadline (CLOCK_MONOTONIC ns) or until stop is set.
void sleep_until(uint64_t deadline, const std::atomic<bool>& stop) {
  for (;;) {
    const uint64_t now = now_ns();
    if (now >= deadline || stop.load(std::memory_order_relaxed)) return;
    const uint64_t until = std::min(deadline, now + kSleepSlice);
    timespec ts{static_cast<time_t>(until / 1'000'000'000ULL), static_cast<long>(until % 1'000'000'000ULL)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
  }
}

// A real error is kept over an interruption, so Ctrl-C never hides one.
void keep_first(Status* first, const Status& s) {
  if (s.ok()) return;
  if (first->ok() ||
      (first->code() == Status::Code::kInterrupted && s.code() != Status::Code::kInterrupted)) {
    *first = s;
  }
}

}  // namespace

namespace {

// EpochStats' counters, once: its wire form, its reading and its merge walk this table.
constexpr U64Field<EpochStats> kEpochCounters[] = {
    {.name = "io_bytes", .member = &EpochStats::io_bytes},
    {.name = "batches", .member = &EpochStats::batches},
    {.name = "compute_ns", .member = &EpochStats::compute_ns},
    {.name = "wait_ns", .member = &EpochStats::wait_ns},
    {.name = "first_wait_ns", .member = &EpochStats::first_wait_ns, .join = Join::kMax},
    {.name = "wall_ns", .member = &EpochStats::wall_ns},
    {.name = "end_ns", .member = &EpochStats::end_ns, .join = Join::kMax},
    {.name = "id_count", .member = &EpochStats::id_count},
    {.name = "id_sum", .member = &EpochStats::id_sum},  // mod 2^64, as the sum it checks against
    {.name = "corrupt", .member = &EpochStats::corrupt},
    {.name = "gpu_bytes", .member = &EpochStats::gpu_bytes},
    {.name = "gpu_ns", .member = &EpochStats::gpu_ns},
    {.name = "source_bytes", .member = &EpochStats::source_bytes},
    {.name = "cache_bytes", .member = &EpochStats::cache_bytes},
    {.name = "cache_samples", .member = &EpochStats::cache_samples},
    {.name = "filled_samples", .member = &EpochStats::filled_samples},
    {.name = "filled_bytes", .member = &EpochStats::filled_bytes},
    {.name = "unfilled_samples", .member = &EpochStats::unfilled_samples},
    {.name = "fill_ns", .member = &EpochStats::fill_ns},
    {.name = "dropped_samples", .member = &EpochStats::dropped_samples},
    {.name = "first_done_ns", .member = &EpochStats::first_done_ns, .join = Join::kMax},
};

}  // namespace

void EpochStats::merge(const EpochStats& o) {
  reads.merge(o.reads);
  batch_wait.merge(o.batch_wait);
  merge_u64_fields<EpochStats>(o, kEpochCounters, this);
}

json EpochStats::to_wire() const {
  json out = {{"reads", reads.to_wire()}, {"batch_wait", batch_wait.to_wire()}};
  u64_fields_to_wire<EpochStats>(*this, kEpochCounters, &out);
  return out;
}

bool EpochStats::from_json(const json& j) {
  if (!j.is_object() || !j.contains("reads") || !j.contains("batch_wait")) return false;
  EpochStats e(reads.series.interval_ns());
  if (!e.reads.from_json(j["reads"]) || !e.batch_wait.from_json(j["batch_wait"])) return false;
  if (!u64_fields_from_wire<EpochStats>(j, kEpochCounters, &e)) return false;
  *this = std::move(e);
  return true;
}

struct TrainLoader::Reader {
  // A sample being read: one request, or several when its span is longer than max_request.
  struct Sample {
    uint32_t sample = 0;
    uint64_t pos = 0;       // position in the plan's read order
    uint64_t start_ns = 0;  // before the open (files layout), so latency includes it
    StoreFile file;         // files layout or a cache hit: the sample's file while its reads are in flight
    int handle = -1;
    uint64_t base = 0;  // file offset of the sample in the file read (0 in a cache file)
    bool from_cache = false;
    bool corrupt = false;
    SampleCache::Fill fill;  // a source read the cache is being filled from
    uint64_t next = 0;       // file offset of the next piece to submit
    uint64_t end = 0;        // end of the span read (aligned under O_DIRECT)
    unsigned pending = 0;    // pieces submitted and not yet completed
    bool used = false;
  };
  struct Slot {
    unsigned sample = 0;  // index in samples
    uint64_t offset = 0;  // file offset of the piece in flight
  };
  std::unique_ptr<Engine> engine;
  IoBuffers bufs;
  unsigned slots = 1;
  std::vector<LoaderMarks::Sample> marks;  // this epoch's samples, when the loader records marks
  std::vector<int> shard_handles;
  std::vector<Slot> slot;
  // One more than the slots: every slot may hold a piece of a different sample while the next one
  // is being set up.
  std::vector<Sample> samples;
  int current = -1;  // the sample whose pieces are still being submitted
  EpochStats stats;
};

struct TrainLoader::Epoch {
  Epoch(const BatchPlan& p, uint64_t t, const std::atomic<bool>& s, std::atomic<uint64_t>* prog)
      : plan(p),
        t0(t),
        stop(s),
        progress(prog),
        n(p.samples.size()),
        filled(std::make_unique<std::atomic<uint32_t>[]>(p.batches())) {}

  // Read positions the first `batches` batches may need: what the window admits. A shuffle buffer
  // hands a batch samples read up to lookahead positions past its end.
  uint64_t window(uint64_t batches) const { return std::min(n, batches * plan.batch_size + plan.lookahead); }
  void set_limit(uint64_t positions) {
    limit.store(positions, std::memory_order_release);
    { std::lock_guard<std::mutex> lock(mu); }
    readers_cv.notify_all();
  }
  void fail() {
    quit.store(true, std::memory_order_release);
    { std::lock_guard<std::mutex> lock(mu); }
    readers_cv.notify_all();
    consumer_cv.notify_all();
  }

  const BatchPlan& plan;
  const uint64_t t0;
  const std::atomic<bool>& stop;
  std::atomic<uint64_t>* progress;
  const uint64_t n;
  std::atomic<uint64_t> cursor{0};
  std::atomic<uint64_t> limit{0};
  std::unique_ptr<std::atomic<uint32_t>[]> filled;  // samples done per batch
  std::atomic<bool> quit{false};                    // a reader failed, or the consumer stopped
  std::mutex mu;
  std::condition_variable readers_cv;   // the window moved, or quit
  std::condition_variable consumer_cv;  // a batch completed, or quit
};

TrainLoader::TrainLoader(const LoaderConfig& config, const DatasetLayout& layout, Store& store,
                         std::string data, BatchCopier* copier)
    : config_(config), layout_(layout), store_(store), data_(std::move(data)), copier_(copier) {
  // Pieces stay aligned, so every piece of an O_DIRECT span is itself a valid O_DIRECT read.
  config_.max_request = std::clamp(config_.max_request / kRecordAlignment * kRecordAlignment,
                                   kRecordAlignment, kMaxRequestBytes);
}

TrainLoader::~TrainLoader() {
  // Engines first: no I/O may be in flight on a closed file.
  for (auto& r : readers_) r->engine.reset();
  shard_files_.clear();
}

std::string TrainLoader::engine_name() const {
  return readers_.empty() ? std::string() : std::string(readers_[0]->engine->name());
}

Status TrainLoader::create(const LoaderConfig& config, const DatasetLayout& layout, Store& store,
                           std::string_view data, const EngineFactory& make, BatchCopier* copier,
                           std::unique_ptr<TrainLoader>* out) {
  std::unique_ptr<TrainLoader> l(new TrainLoader(config, layout, store, std::string(data), copier));
  const bool shards = layout.spec().layout == DatasetLayoutKind::kShards;
  if (shards) {
    for (uint64_t f = 0; f < layout.num_files(); ++f) {
      StoreFile file;
      Status s = open_dataset_file(store, data, layout, f, config.direct, &file);
      if (!s.ok()) {
        if (s.message().find("Too many open files") != std::string::npos) {
          return Status::IoError(s.message() + " (" + std::to_string(layout.num_files()) +
                                 " shards are kept open: raise `ulimit -n` or samples_per_shard)");
        }
        return s;
      }
      l->shard_files_.push_back(std::move(file));
    }
  }
  const uint64_t span = config.direct ? layout.max_aligned_span() : layout.max_sample_size();
  const uint64_t buf_size = std::min(span, l->config_.max_request);
  for (unsigned t = 0; t < std::max(config.read_threads, 1u); ++t) {
    auto r = std::make_unique<Reader>();
    EngineOptions eo;
    eo.queue_depth = config.queue_depth;
    eo.direct = config.direct;
    eo.map_advice = config.map_advice;
    // Sample files come and go with every read: registering each would cost a syscall per sample.
    eo.fixed_files = shards;
    // A cache hit opens a file of its own for each sample in flight, beside the shards.
    const uint64_t cache_files = config.cache_tier ? uint64_t{config.queue_depth} + 2 : 0;
    eo.max_files =
        shards ? static_cast<unsigned>(std::min<uint64_t>(layout.num_files() + cache_files, 1u << 20)) : 1;
    Status s = make(eo, &r->engine);
    if (s.ok() && config.cache_tier && store.caps().engine != nullptr) {
      // An object store's dataset, a local cache in front: the cache's files are descriptors, which the
      // store's engine cannot read, so a synchronous descriptor engine takes them beside it.
      std::unique_ptr<Engine> local;
      s = make_engine("psync", eo, &local);
      if (s.ok()) s = make_mixed_engine(std::move(r->engine), std::move(local), &r->engine);
    }
    if (!s.ok()) return s;
    const EngineCaps caps = r->engine->caps();
    l->verify_ = caps.moves_data;
    // A synchronous engine completes each I/O inside queue(): more slots would only
    // delay the completions (and inflate their latencies) behind each other.
    r->slots = caps.sync ? 1 : std::max(config.queue_depth, 1u);
    s = IoBuffers::allocate(r->slots, std::max<uint64_t>(buf_size, 1), &r->bufs);
    if (!s.ok()) return s;
    s = r->engine->register_buffers(r->bufs.iovecs());
    if (!s.ok()) return s;
    r->slot.resize(r->slots);
    r->samples.resize(r->slots + 1);
    for (const StoreFile& file : l->shard_files_) {
      int h = -1;
      s = r->engine->add_store_file(file, &h);
      if (!s.ok()) return s;
      r->shard_handles.push_back(h);
    }
    l->readers_.push_back(std::move(r));
  }
  *out = std::move(l);
  return Status::Ok();
}

// One reader's share of one epoch: claims positions in the window, reads each sample in pieces through the
// reader's engine (IoPump), checks its header, collates it into the batch, fills the cache tier, and counts
// it. Nested in TrainLoader for the loader's dataset, config and cache.
class TrainLoader::ReadPass {
 public:
  ReadPass(TrainLoader& l, Reader& r, Epoch& e) : l_(l), r_(r), e_(e) {}

  Status run() {
    while (result_.ok()) {
      if (e_.quit.load(std::memory_order_acquire) || e_.stop.load(std::memory_order_relaxed)) break;
      const uint64_t pos = e_.cursor.load(std::memory_order_acquire);
      if (pos >= e_.n) break;
      if (pos >= e_.limit.load(std::memory_order_acquire)) {
        wait_for_window();
        continue;
      }
      IoPump pump(*r_.engine, r_.bufs,
                  {.slots = r_.slots, .fixed_buffers = true, .t0_ns = e_.t0, .stop = &e_.stop});
      keep_first(&result_, pump.run([this](unsigned slot, IoRequest& req) { return next(slot, req); },
                                    [this](unsigned slot, const IoRequest& req) { done(slot, req); }));
      // Samples whose reads failed or were abandoned still hold their files.
      for (auto& smp : r_.samples) {
        if (smp.used) release(smp);
      }
      r_.current = -1;
    }
    if (!result_.ok() && result_.code() != Status::Code::kInterrupted) e_.fail();
    return result_;
  }

 private:
  using Sample = Reader::Sample;

  void wait_for_window() {
    std::unique_lock<std::mutex> lock(e_.mu);
    e_.readers_cv.wait_for(lock, kPoll, [&] {
      return e_.quit.load() || e_.cursor.load() < e_.limit.load() || e_.cursor.load() >= e_.n;
    });
  }

  // The first error stops the epoch on every reader.
  void fail(const Status& s) {
    keep_first(&result_, s);
    e_.fail();
  }

  // drop: the sample's own file leaves the page cache too, once the engine has let go of it (a mapping
  // would hold its pages).
  void release(Sample& smp, bool drop = false) {
    if (smp.fill.active() && l_.cache_ != nullptr) l_.cache_->abandon(&smp.fill);
    if (smp.file.is_open()) {
      keep_first(&result_, r_.engine->remove_file(smp.handle));
      if (drop && smp.file.fd() >= 0 && drop_cached_range(smp.file.fd(), 0, 0).ok())
        r_.stats.dropped_samples++;
      smp.file = StoreFile();
    }
    smp.used = false;
  }

  // The next position in the window, claimed; false when there is none now.
  bool claim_position(uint64_t* pos) {
    *pos = e_.cursor.load(std::memory_order_relaxed);
    do {
      if (*pos >= e_.limit.load(std::memory_order_acquire)) return false;
    } while (!e_.cursor.compare_exchange_weak(*pos, *pos + 1, std::memory_order_acq_rel,
                                              std::memory_order_relaxed));
    return true;
  }

  // Claims the next position and sets its sample up (cache lookup, file, piece range); false when there is
  // none now or it failed.
  bool start_sample() {
    uint64_t pos = 0;
    if (!claim_position(&pos)) return false;
    unsigned idx = 0;
    while (r_.samples[idx].used) ++idx;  // one is always free: see Reader::samples
    Sample& smp = r_.samples[idx];
    smp = Sample();
    smp.used = true;
    smp.sample = e_.plan.samples[pos];
    smp.pos = pos;
    smp.start_ns = now_ns();
    StoreFile opened;
    if (l_.cache_ != nullptr && !look_up_cache(smp, &opened)) return false;
    if (!open_source(smp, std::move(opened))) return false;
    const uint64_t off = smp.from_cache ? 0 : l_.layout_.offset_of(smp.sample);
    const uint64_t size = l_.layout_.size_of(smp.sample);
    const bool direct = l_.config_.direct;
    smp.base = off;
    smp.next = direct ? off / kRecordAlignment * kRecordAlignment : off;
    smp.end = direct ? (off + size + kRecordAlignment - 1) / kRecordAlignment * kRecordAlignment : off + size;
    r_.current = static_cast<int>(idx);
    return true;
  }

  // A hit opens the cached copy (*opened); a miss begins its fill where the tier has room.
  bool look_up_cache(Sample& smp, StoreFile* opened) {
    Status s = l_.cache_->lookup(smp.sample, l_.config_.direct, opened);
    smp.from_cache = s.ok() && opened->is_open();
    if (s.ok() && !smp.from_cache) {
      bool started = false;
      const uint64_t f0 = now_ns();
      s = l_.cache_->begin(smp.sample, l_.layout_.size_of(smp.sample), &smp.fill, &started);
      r_.stats.fill_ns += now_ns() - f0;
      if (s.ok() && !started) r_.stats.unfilled_samples++;
    }
    if (s.ok()) return true;
    smp.used = false;
    fail(s);
    return false;
  }

  // The handle the sample's pieces are read through: its own file (a files layout, or the cache's copy),
  // which it holds until its last piece completes, or its shard's.
  bool open_source(Sample& smp, StoreFile opened) {
    const uint64_t file = l_.layout_.file_of(smp.sample);
    if (l_.layout_.spec().layout != DatasetLayoutKind::kFiles && !smp.from_cache) {
      smp.handle = r_.shard_handles[file];
      return true;
    }
    Status s = smp.from_cache
                   ? Status::Ok()
                   : open_dataset_file(l_.store_, l_.data_, l_.layout_, file, l_.config_.direct, &opened);
    int handle = -1;
    if (s.ok()) s = r_.engine->add_store_file(opened, &handle);
    if (!s.ok()) {
      release(smp);
      fail(s);
      return false;
    }
    smp.file = std::move(opened);
    smp.handle = handle;
    return true;
  }

  // IoPump's next: the current sample's next piece, starting a sample when none is current.
  bool next(unsigned slot, IoRequest& req) {
    if (e_.quit.load(std::memory_order_relaxed)) return false;
    if (r_.current < 0 && !start_sample()) return false;
    const auto idx = static_cast<unsigned>(r_.current);
    Sample& smp = r_.samples[idx];
    const uint64_t len = std::min(l_.config_.max_request, smp.end - smp.next);
    req.offset = smp.next;
    req.len = static_cast<uint32_t>(len);
    req.file = smp.handle;
    req.op = IoOp::kRead;
    r_.slot[slot] = {idx, smp.next};
    smp.next += len;
    smp.pending++;
    if (smp.next == smp.end) r_.current = -1;
    return true;
  }

  // IoPump's done: a piece arrived; the sample is counted once its last one has.
  void done(unsigned slot, const IoRequest& req) {
    const Reader::Slot& sl = r_.slot[slot];
    Sample& smp = r_.samples[sl.sample];
    const auto* buf = static_cast<const unsigned char*>(req.buf);
    const uint64_t off = smp.base;
    const uint32_t size = l_.layout_.size_of(smp.sample);
    // The part of the sample this piece holds: [from, to) in file offsets.
    const uint64_t from = std::max(off, sl.offset);
    const uint64_t to = std::min<uint64_t>(off + size, sl.offset + req.len);
    if (l_.verify_ && sl.offset <= off && off < sl.offset + req.len)
      check_header(smp, buf + (off - sl.offset), to - off);
    const uint64_t at = e_.plan.consumed_at(smp.pos);
    if (from < to) {
      collate(at, from - off, buf + (from - sl.offset), to - from);
      fill_cache(smp, from - off, buf + (from - sl.offset), to - from);
    }
    r_.stats.io_bytes += req.len;
    smp.pending--;
    if (smp.pending > 0 || smp.next < smp.end) return;
    if (smp.fill.active()) commit_fill(smp, size);
    finish_sample(smp, size, at / e_.plan.batch_size);
  }

  void check_header(Sample& smp, const unsigned char* at, uint64_t have) {
    unsigned char h[kSampleHeader];
    sample_header(l_.layout_.spec(), smp.sample, h);
    const uint64_t n = std::min<uint64_t>({kSampleHeader, l_.layout_.size_of(smp.sample), have});
    if (std::memcmp(at, h, n) != 0) {
      r_.stats.corrupt++;
      smp.corrupt = true;
    }
  }

  // The sample's bytes [within, within + n) go to its place in the batch's pinned buffer.
  void collate(uint64_t at, uint64_t within, const unsigned char* bytes, uint64_t n) {
    BatchCopier* copier = l_.copier_;
    if (copier == nullptr) return;
    const uint64_t batch = at / e_.plan.batch_size;
    auto* dst = static_cast<unsigned char*>(copier->host(batch % copier->slots()));
    std::memcpy(dst + (at - e_.plan.batch_begin(batch)) * l_.layout_.max_sample_size() + within, bytes, n);
  }

  void fill_cache(Sample& smp, uint64_t within, const unsigned char* bytes, uint64_t n) {
    if (!smp.fill.active()) return;
    const uint64_t f0 = now_ns();
    Status ws = smp.fill.write(bytes, n, within);
    r_.stats.fill_ns += now_ns() - f0;
    if (!ws.ok()) {
      fail(ws);
      l_.cache_->abandon(&smp.fill);
    }
  }

  // Only a sample read whole and verified is served later: a corrupt one would pass its fault on.
  void commit_fill(Sample& smp, uint32_t size) {
    const uint64_t f0 = now_ns();
    if (smp.corrupt || !l_.verify_) {
      l_.cache_->abandon(&smp.fill);
    } else if (Status cs = l_.cache_->commit(&smp.fill); cs.ok()) {
      r_.stats.filled_samples++;
      r_.stats.filled_bytes += cached_sample_bytes(size);
    } else {
      fail(cs);
    }
    r_.stats.fill_ns += now_ns() - f0;
  }

  // The sample is whole: its figures, and its batch told when it was the batch's last.
  void finish_sample(Sample& smp, uint32_t size, uint64_t batch) {
    EpochStats& st = r_.stats;
    (smp.from_cache ? st.cache_bytes : st.source_bytes) += size;
    if (smp.from_cache) st.cache_samples++;
    const bool drop = l_.config_.drop_after_use && !smp.from_cache;
    if (drop && l_.layout_.spec().layout != DatasetLayoutKind::kFiles) drop_shard_pages(smp, size);
    release(smp, drop);
    const uint64_t end = now_ns();
    const uint64_t start_rel = smp.start_ns > e_.t0 ? smp.start_ns - e_.t0 : 0;
    st.reads.latency.record(end - smp.start_ns);
    if (l_.marks_ != nullptr) r_.marks.push_back({end, end - smp.start_ns});
    st.reads.series.add(end - e_.t0, size);
    st.reads.span(start_rel, end - e_.t0);
    st.reads.bytes += size;
    st.reads.ios++;
    st.id_count++;
    st.id_sum += sample_fingerprint(smp.sample);
    if (e_.progress != nullptr) e_.progress->fetch_add(size, std::memory_order_relaxed);
    if (e_.filled[batch].fetch_add(1, std::memory_order_acq_rel) + 1 == e_.plan.batch_len(batch)) {
      { std::lock_guard<std::mutex> lock(e_.mu); }
      e_.consumer_cv.notify_all();
    }
  }

  // A shard sample's bytes out of the page cache, widened to pages: the page it shares with the next
  // sample goes too (read already, or read again from the device: never a hit).
  void drop_shard_pages(const Sample& smp, uint32_t size) {
    const int fd = l_.shard_files_[l_.layout_.file_of(smp.sample)].fd();
    if (fd < 0) return;  // an object store's object: no page cache here
    const uint64_t from = smp.base / kRecordAlignment * kRecordAlignment;
    const uint64_t to = (smp.base + size + kRecordAlignment - 1) / kRecordAlignment * kRecordAlignment;
    if (drop_cached_range(fd, from, to - from).ok()) r_.stats.dropped_samples++;
  }

  TrainLoader& l_;
  Reader& r_;
  Epoch& e_;
  Status result_;
};

Status TrainLoader::read_loop(Reader& r, Epoch& e) { return ReadPass(*this, r, e).run(); }

Status TrainLoader::run_epoch(const BatchPlan& plan, uint64_t t0, const std::atomic<bool>& stop,
                              std::atomic<uint64_t>* progress, EpochStats* out) {
  *out = EpochStats(config_.series_interval_ns);
  Epoch e(plan, t0, stop, progress);
  e.limit.store(e.window(config_.prefetch == 0 ? 1 : config_.prefetch));
  for (auto& r : readers_) r->stats = EpochStats(config_.series_interval_ns);

  std::vector<Status> reader_status(readers_.size());
  std::vector<std::thread> threads;
  threads.reserve(readers_.size());
  for (size_t i = 0; i < readers_.size(); ++i) {
    threads.emplace_back([&, i] { reader_status[i] = read_loop(*readers_[i], e); });
  }
  ConsumerClock clock{.take0 = 0, .last_end = t0};
  const Status consumer = consume_batches(e, out, &clock);
  e.fail();  // releases every reader, done or not
  for (auto& t : threads) t.join();
  close_epoch(e, clock, out);

  Status first;
  for (const auto& s : reader_status) keep_first(&first, s);
  keep_first(&first, consumer);
  if (first.ok() && stop.load()) first = Status::Interrupted();
  return first;
}

// The emulated accelerator: takes each batch once it is whole, copies it to the device when asked, computes
// for compute_ns, and moves the readers' window on.
Status TrainLoader::consume_batches(Epoch& e, EpochStats* out, ConsumerClock* clock) {
  const BatchPlan& plan = e.plan;
  for (uint64_t b = 0; b < plan.batches(); ++b) {
    const uint64_t w0 = now_ns();
    if (!wait_for_batch(e, b))
      return e.stop.load(std::memory_order_relaxed) ? Status::Interrupted() : Status::Ok();
    if (copier_ != nullptr) {
      const uint64_t g0 = now_ns();
      const uint64_t bytes = plan.batch_len(b) * layout_.max_sample_size();
      const Status copied = copier_->copy(b % copier_->slots(), bytes);
      out->gpu_ns += now_ns() - g0;
      if (!copied.ok()) return copied;
      out->gpu_bytes += bytes;
    }
    const uint64_t take = now_ns();
    out->batch_wait.record(take - w0);
    if (b == 0) {
      out->first_wait_ns = take - e.t0;
      clock->take0 = take;
    } else {
      out->wait_ns += take - w0;
    }
    if (config_.prefetch > 0) e.set_limit(e.window(b + 1 + config_.prefetch));
    clock->last_end = take;
    if (config_.compute_ns > 0) {
      sleep_until(take + config_.compute_ns, e.stop);
      clock->last_end = now_ns();
      out->compute_ns += clock->last_end - take;
      if (marks_ != nullptr) marks_->busy.push_back({take, clock->last_end});
    }
    out->batches++;
    if (b == 0) out->first_done_ns = clock->last_end - e.t0;
    if (config_.prefetch == 0) e.set_limit(e.window(b + 2));
  }
  return Status::Ok();
}

// False when the epoch ends before batch b is whole: a stop, or a reader failed (its status says why).
bool TrainLoader::wait_for_batch(Epoch& e, uint64_t b) {
  std::unique_lock<std::mutex> lock(e.mu);
  while (e.filled[b].load(std::memory_order_acquire) < e.plan.batch_len(b) && !e.quit.load() &&
         !e.stop.load(std::memory_order_relaxed)) {
    e.consumer_cv.wait_for(lock, kPoll);
  }
  return !e.stop.load(std::memory_order_relaxed) && !e.quit.load();
}

// The epoch's spans (the AU denominator) and the readers' figures into out.
void TrainLoader::close_epoch(Epoch& e, const ConsumerClock& clock, EpochStats* out) {
  out->end_ns = clock.last_end - e.t0;
  if (marks_ != nullptr) {
    // The AU denominator's span, as below.
    marks_->active.push_back({out->batches >= 2 ? clock.take0 : e.t0, clock.last_end});
    for (auto& r : readers_) {
      for (const auto& m : r->marks) marks_->add_sample(m.end_ns, m.latency_ns);
      r->marks.clear();
    }
  }
  if (out->batches >= 2) {
    out->wall_ns = clock.last_end - clock.take0;
  } else {
    // One batch: nothing to exclude.
    out->wall_ns = clock.last_end - e.t0;
    out->wait_ns = out->first_wait_ns;
  }
  // A reader's figures are its reads and the cache's (its consumer counters are zero): merged as a rank's.
  for (auto& r : readers_) out->merge(r->stats);
}

}  // namespace iofab
