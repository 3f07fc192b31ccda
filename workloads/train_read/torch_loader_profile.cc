#include "workloads/train_read/torch_loader_profile.h"

#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "harness/engines/io_driver.h"

namespace iofab {
namespace {

using nlohmann::json;

constexpr uint64_t kQuit = UINT64_MAX;  // the index message that ends a worker (torch sends None)
constexpr int kPollMs = 20;             // how often a waiting thread looks at the stop flag

uint64_t seconds_ns(double s) { return s > 0 ? static_cast<uint64_t>(std::llround(s * 1e9)) : 0; }

void sleep_until_ns(uint64_t deadline, const std::atomic<bool>& stop) {
  for (;;) {
    const uint64_t now = now_ns();
    if (now >= deadline || stop.load(std::memory_order_relaxed)) return;
    const uint64_t until = std::min<uint64_t>(deadline, now + 50'000'000ULL);
    timespec ts{static_cast<time_t>(until / 1'000'000'000ULL), static_cast<long>(until % 1'000'000'000ULL)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
  }
}

// A batch that came back from a worker: its descriptor and size.
struct Arrived {
  int fd = -1;
  uint64_t bytes = 0;
  uint32_t worker = 0;
};

void close_arrived(std::map<uint64_t, Arrived>* early) {
  for (auto& [b, a] : *early) {
    if (a.fd >= 0) ::close(a.fd);
  }
  early->clear();
}

}  // namespace

json LoaderProfileCounters::to_json() const {
  const auto per = [](uint64_t n, uint64_t d) {
    return d > 0 ? static_cast<double>(n) / static_cast<double>(d) : 0.0;
  };
  return {{"samples", samples},
          {"batches", batches},
          {"syscalls_per_sample", sample_sys.to_json(static_cast<double>(samples))},
          {"worker_syscalls_per_batch", batch_sys.to_json(static_cast<double>(batches))},
          {"main_syscalls_per_batch", main_sys.to_json(static_cast<double>(batches))},
          {"reads_per_sample", per(reads, samples)},
          {"read_asked_bytes_per_sample", per(asked_bytes, samples)},
          {"empty_reads_per_sample", per(empty_reads, samples)},
          {"read_bytes_per_sample", per(sample_bytes, samples)},
          {"max_reads_in_flight_per_worker", max_in_flight_worker},
          {"max_reads_in_flight", max_in_flight_total},
          {"max_batches_outstanding", max_outstanding},
          {"batches_outstanding_limit", outstanding_limit},
          {"batches_arrived_out_of_order", arrived_out_of_order},
          {"worker_starts", worker_starts},
          {"pinned_bytes", pinned_bytes}};
}

struct TorchLoaderProfile::Worker {
  unsigned id = 0;
  int index[2] = {-1, -1};  // the main loop sends batch numbers on [0], the worker receives on [1]
  std::thread thread;
  std::mutex mu;  // the worker holds it while it builds a batch; the main loop to take its figures
  EpochStats stats;
  SyscallCounts sample_sys;
  SyscallCounts batch_sys;
  SampleReadStats rs;
  uint64_t samples = 0;
  uint64_t bytes = 0;
  Status status;  // the first error of a batch it built
  std::atomic<bool> quit{false};
  ~Worker() {
    for (int fd : index) {
      if (fd >= 0) ::close(fd);
    }
  }
};

struct TorchLoaderProfile::Epoch {
  const BatchPlan* plan = nullptr;
  uint64_t t0 = 0;
  std::atomic<uint64_t>* progress = nullptr;
};

TorchLoaderProfile::TorchLoaderProfile(const TorchProfileConfig& config, const DatasetLayout& layout,
                                       std::string data_path)
    : config_(config), layout_(layout), data_path_(std::move(data_path)) {}

TorchLoaderProfile::~TorchLoaderProfile() {
  stop_workers(nullptr);
  for (int fd : results_) {
    if (fd >= 0) ::close(fd);
  }
}

Status TorchLoaderProfile::create(const TorchProfileConfig& config, const DatasetLayout& layout,
                                  std::string data_path, std::unique_ptr<TorchLoaderProfile>* out) {
  std::unique_ptr<TorchLoaderProfile> p(new TorchLoaderProfile(config, layout, std::move(data_path)));
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p->results_) != 0) {
    return Status::FromErrno("socketpair for the loader's results", errno);
  }
  p->inline_ = std::make_unique<Worker>();
  p->inline_->rs.in_flight = &p->in_flight_;
  p->inline_->stats = EpochStats(config.series_interval_ns);
  p->counters_.outstanding_limit =
      static_cast<uint64_t>(config.params.num_workers) * config.params.prefetch_factor;
  *out = std::move(p);
  return Status::Ok();
}

Status TorchLoaderProfile::start_workers(const std::atomic<bool>& stop) {
  stop_ = &stop;
  for (unsigned i = 0; i < config_.params.num_workers; ++i) {
    auto w = std::make_unique<Worker>();
    w->id = i;
    w->rs.in_flight = &in_flight_;
    w->stats = EpochStats(config_.series_interval_ns);
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, w->index) != 0) {
      const int err = errno;
      stop_workers(nullptr);
      return Status::FromErrno("socketpair for a loader worker", err);
    }
    Worker* raw = w.get();
    workers_.push_back(std::move(w));
    raw->thread = std::thread([this, raw] { worker_loop(*raw); });
    counters_.worker_starts++;
  }
  return Status::Ok();
}

void TorchLoaderProfile::stop_workers(EpochStats* absorb) {
  for (auto& w : workers_) {
    w->quit.store(true);
    const uint64_t q = kQuit;
    (void)::write(w->index[0], &q, sizeof q);
  }
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
  }
  // Their figures first: the epoch's samples are theirs.
  if (absorb != nullptr) absorb_workers(absorb);
  workers_.clear();
  // Whatever a worker sent that nobody took: its descriptors closed.
  for (;;) {
    BatchMessage m;
    int fd = -1;
    bool got = false;
    SyscallCounts ignored;
    if (results_[0] < 0 || !recv_batch(results_[0], 0, &m, &fd, &got, &ignored).ok() || !got) break;
    if (fd >= 0) ::close(fd);
  }
}

// A worker: its start-up, then batches as the main loop hands them out, until told to quit.
void TorchLoaderProfile::worker_loop(Worker& w) {
  spin_cpu_ns(seconds_ns(config_.spin.worker_start_s), stop_);
  while (!w.quit.load() && !stop_->load(std::memory_order_relaxed)) {
    pollfd p{.fd = w.index[1], .events = POLLIN, .revents = 0};
    if (::poll(&p, 1, kPollMs) <= 0) continue;
    uint64_t b = kQuit;
    const ssize_t n = ::read(w.index[1], &b, sizeof b);
    std::lock_guard<std::mutex> lock(w.mu);
    w.batch_sys.add(Sys::kRead);
    if (n != static_cast<ssize_t>(sizeof b) || b == kQuit) break;
    const Epoch* e = epoch_.load(std::memory_order_acquire);
    const Status s = build_batch(w, *e, b);
    if (!s.ok()) {
      w.status = s;
      const BatchMessage m{.batch = b, .bytes = 0, .worker = w.id, .error = 1};
      (void)send_batch(results_[1], m, -1, &w.batch_sys);
    }
  }
}

// A batch read sample by sample, one read at a time, each as CPython reads a file.
Status TorchLoaderProfile::read_batch(const Epoch& e, uint64_t b, Worker& w,
                                      std::vector<std::vector<unsigned char>>* samples) {
  const BatchPlan& plan = *e.plan;
  samples->resize(plan.batch_len(b));
  for (uint64_t i = plan.batch_begin(b); i < plan.batch_end(b); ++i) {
    const uint32_t sample = plan.samples[i];
    std::vector<unsigned char>& bytes = (*samples)[i - plan.batch_begin(b)];
    const uint64_t start = now_ns();
    const std::string path = data_path_ + "/" + layout_.file_path(layout_.file_of(sample));
    Status s = read_sample_like_python(path, config_.drop_after_use, &bytes, &w.sample_sys, &w.rs);
    if (!s.ok()) return s;
    const uint64_t size = bytes.size();
    spin_cpu_ns(seconds_ns(config_.sample_spin.at(static_cast<double>(size))), stop_);
    unsigned char h[kSampleHeader];
    sample_header(layout_.spec(), sample, h);
    const uint64_t n = std::min<uint64_t>({kSampleHeader, layout_.size_of(sample), size});
    if (std::memcmp(bytes.data(), h, n) != 0) w.stats.corrupt++;
    const uint64_t end = now_ns();
    EpochStats& st = w.stats;
    st.reads.latency.record(end - start);
    // The sample's bytes as the native loader counts them; Python reads the whole file (padded to 4 KiB
    // where the sample is not), which io_bytes and the counters hold.
    const uint32_t sample_bytes = layout_.size_of(sample);
    st.reads.series.add(end - e.t0, sample_bytes);
    st.reads.span(start > e.t0 ? start - e.t0 : 0, end - e.t0);
    st.reads.bytes += sample_bytes;
    st.reads.ios++;
    st.io_bytes += size;
    st.source_bytes += sample_bytes;
    st.id_count++;
    st.id_sum += sample_fingerprint(sample);
    w.samples++;
    w.bytes += size;
    if (e.progress != nullptr) e.progress->fetch_add(sample_bytes, std::memory_order_relaxed);
  }
  return Status::Ok();
}

// A worker's batch: its samples read, collated into shared memory, the descriptor sent to the main loop.
Status TorchLoaderProfile::build_batch(Worker& w, const Epoch& e, uint64_t b) {
  std::vector<std::vector<unsigned char>> samples;
  if (Status s = read_batch(e, b, w, &samples); !s.ok()) return s;
  uint64_t bytes = 0;
  for (const auto& x : samples) bytes += x.size();
  ShmBatch shm;
  if (Status s = make_shm_batch(bytes, &w.batch_sys, &shm); !s.ok()) return s;
  uint64_t at = 0;
  for (const auto& x : samples) {
    std::memcpy(shm.map + at, x.data(), x.size());
    at += x.size();
  }
  samples.clear();
  spin_cpu_ns(seconds_ns(config_.collate_spin.at(static_cast<double>(bytes))), stop_);
  const BatchMessage m{.batch = b, .bytes = bytes, .worker = w.id, .error = 0};
  Status s = send_batch(results_[1], m, shm.fd, &w.batch_sys);
  shm.release(&w.batch_sys);
  return s;
}

// The workers' figures for the epoch into out, and their counters into the profile's.
void TorchLoaderProfile::absorb_workers(EpochStats* out) {
  std::vector<Worker*> all;
  for (auto& w : workers_) all.push_back(w.get());
  all.push_back(inline_.get());
  for (Worker* w : all) {
    std::lock_guard<std::mutex> lock(w->mu);
    out->merge(w->stats);
    w->stats = EpochStats(config_.series_interval_ns);
    LoaderProfileCounters& c = counters_;
    c.sample_sys.merge(w->sample_sys);
    c.batch_sys.merge(w->batch_sys);
    w->sample_sys = {};
    w->batch_sys = {};
    c.samples += w->samples;
    c.sample_bytes += w->bytes;
    w->samples = w->bytes = 0;
    c.reads += w->rs.reads;
    c.asked_bytes += w->rs.asked_bytes;
    c.empty_reads += w->rs.empty_reads;
    c.max_in_flight_worker = std::max(c.max_in_flight_worker, w->rs.max_in_flight_worker);
    c.max_in_flight_total = std::max(c.max_in_flight_total, w->rs.max_in_flight_total);
    w->rs.reads = w->rs.asked_bytes = w->rs.empty_reads = 0;
  }
}

// One epoch's main loop: _MultiProcessingDataLoaderIter's index handout, in-order receipt and the
// training step that consumes each batch (compute_per_batch).
class TorchLoaderProfile::MainLoop {
 public:
  MainLoop(TorchLoaderProfile& p, const Epoch& e, const std::atomic<bool>& stop, EpochStats* out)
      : p_(p), e_(e), stop_(stop), out_(out), nb_(e.plan->batches()) {}

  ~MainLoop() { close_arrived(&early_); }

  Status run() {
    LoaderProfileCounters& c = p_.counters_;
    c.worker_of_batch.assign(nb_, UINT32_MAX);
    c.delivered.clear();
    const uint64_t workers = p_.config_.params.num_workers;
    while (sent_ < std::min<uint64_t>(workers * p_.config_.params.prefetch_factor, nb_)) {
      if (Status s = put_index(); !s.ok()) return s;
    }
    for (uint64_t b = 0; b < nb_; ++b) {
      const uint64_t w0 = now_ns();
      ShmBatch batch;
      Status s = workers > 0 ? take_from_workers(b, &batch) : build_inline(b, &batch);
      if (!s.ok()) return s;
      if (workers > 0 && sent_ < nb_) {
        if (s = put_index(); !s.ok()) return s;
      }
      if (p_.config_.params.pin_memory) {
        pinned_.assign(batch.map, batch.map + batch.bytes);  // the pin-memory copy
        c.pinned_bytes += batch.bytes;
      }
      step(b, w0);
      batch.release(&c.main_sys);
      c.delivered.push_back(b);
      c.batches++;
    }
    return Status::Ok();
  }

  void close() {
    out_->end_ns = last_end_ - e_.t0;
    if (out_->batches >= 2) {
      out_->wall_ns = last_end_ - take0_;
    } else {
      out_->wall_ns = last_end_ - e_.t0;
      out_->wait_ns = out_->first_wait_ns;
    }
  }

 private:
  // Batch sent_ to worker sent_ % num_workers, as torch's _try_put_index cycles over the workers.
  Status put_index() {
    LoaderProfileCounters& c = p_.counters_;
    const uint64_t b = sent_++;
    const auto w = static_cast<uint32_t>(b % p_.workers_.size());
    c.worker_of_batch[b] = w;
    c.main_sys.add(Sys::kWrite);
    if (::write(p_.workers_[w]->index[0], &b, sizeof b) != static_cast<ssize_t>(sizeof b)) {
      return Status::FromErrno("hand a batch to a loader worker", errno);
    }
    c.max_outstanding = std::max(c.max_outstanding, sent_ - taken_);
    return Status::Ok();
  }

  // Waits for batch b, holding any that come before it, then maps it as the main process rebuilds it.
  Status take_from_workers(uint64_t b, ShmBatch* batch) {
    LoaderProfileCounters& c = p_.counters_;
    while (early_.find(b) == early_.end()) {
      if (stop_.load(std::memory_order_relaxed)) return Status::Interrupted();
      BatchMessage m;
      int fd = -1;
      bool got = false;
      if (Status s = recv_batch(p_.results_[0], kPollMs, &m, &fd, &got, &c.main_sys); !s.ok()) return s;
      if (!got) continue;
      if (m.error != 0) return worker_error(m.worker);
      if (m.batch != b) c.arrived_out_of_order++;
      early_[m.batch] = Arrived{.fd = fd, .bytes = m.bytes, .worker = m.worker};
    }
    const Arrived a = early_[b];
    early_.erase(b);
    taken_++;
    spin_cpu_ns(seconds_ns(p_.config_.spin.main_batch_s), &stop_);
    if (a.fd < 0) return Status::Internal("a loader worker sent a batch without its buffer");
    return map_received_batch(a.fd, a.bytes, &c.main_sys, batch);
  }

  Status worker_error(uint32_t w) {
    Worker& worker = *p_.workers_[w];
    std::lock_guard<std::mutex> lock(worker.mu);
    return worker.status.ok() ? Status::Internal("a loader worker failed") : worker.status;
  }

  // num_workers 0: the main process fetches and collates the batch itself (no shared memory, no handoff).
  Status build_inline(uint64_t b, ShmBatch* batch) {
    Worker& w = *p_.inline_;
    std::lock_guard<std::mutex> lock(w.mu);
    std::vector<std::vector<unsigned char>> samples;
    if (Status s = p_.read_batch(e_, b, w, &samples); !s.ok()) return s;
    collated_.clear();
    for (const auto& x : samples) collated_.insert(collated_.end(), x.begin(), x.end());
    const auto bytes = static_cast<double>(collated_.size());
    spin_cpu_ns(seconds_ns(p_.config_.collate_spin.at(bytes) + p_.config_.spin.main_batch_s), &stop_);
    taken_++;
    batch->bytes = collated_.size();
    batch->map = nullptr;  // the heap buffer collated_ holds it
    if (p_.config_.params.pin_memory) pinned_.assign(collated_.begin(), collated_.end());
    return Status::Ok();
  }

  // The training step on batch b: its wait, then compute_per_batch, as TrainLoader's consumer counts them.
  void step(uint64_t b, uint64_t w0) {
    const uint64_t take = now_ns();
    out_->batch_wait.record(take - w0);
    if (b == 0) {
      out_->first_wait_ns = take - e_.t0;
      take0_ = take;
    } else {
      out_->wait_ns += take - w0;
    }
    last_end_ = take;
    if (p_.config_.compute_ns > 0) {
      sleep_until_ns(take + p_.config_.compute_ns, stop_);
      last_end_ = now_ns();
      out_->compute_ns += last_end_ - take;
    }
    out_->batches++;
    if (b == 0) out_->first_done_ns = last_end_ - e_.t0;
  }

  TorchLoaderProfile& p_;
  const Epoch& e_;
  const std::atomic<bool>& stop_;
  EpochStats* out_;
  const uint64_t nb_;
  uint64_t sent_ = 0;
  uint64_t taken_ = 0;
  std::map<uint64_t, Arrived> early_;
  std::vector<unsigned char> pinned_;
  std::vector<unsigned char> collated_;
  uint64_t take0_ = 0;
  uint64_t last_end_ = 0;
};

Status TorchLoaderProfile::run_epoch(const BatchPlan& plan, uint64_t t0, const std::atomic<bool>& stop,
                                     std::atomic<uint64_t>* progress, EpochStats* out) {
  *out = EpochStats(config_.series_interval_ns);
  Epoch e{.plan = &plan, .t0 = t0, .progress = progress};
  epoch_.store(&e, std::memory_order_release);
  stop_ = &stop;
  Status st;
  // Workers start with the epoch's iterator (iter(loader)); persistent ones only the first time.
  if (config_.params.num_workers > 0 && workers_.empty()) st = start_workers(stop);
  MainLoop loop(*this, e, stop, out);
  if (st.ok()) st = loop.run();
  loop.close();
  // Not persistent, or the epoch ended early: the workers go (a later epoch starts new ones).
  if (!config_.params.persistent_workers || !st.ok()) {
    stop_workers(out);
  } else {
    absorb_workers(out);
  }
  epoch_.store(nullptr, std::memory_order_release);
  if (st.ok() && stop.load()) st = Status::Interrupted();
  return st;
}

}  // namespace iofab
