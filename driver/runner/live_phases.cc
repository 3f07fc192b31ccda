#include "driver/runner/live_phases.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>

#include "harness/core/wall_clock.h"
#include "harness/telemetry/sample.h"

namespace iofab {
namespace {

uint64_t mono_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// A scraper reads the old file or the whole new one: written beside it under a name node_exporter skips
// (not *.prom), then renamed over it. No fsync: a textfile is rewritten every interval, not kept.
void write_textfile(const std::string& path, const std::string& text) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string tmp = dir + "." + base + ".tmp." + std::to_string(getpid());
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << text;
    if (!f.flush()) return;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

// --repeat runs the suite again in the same process: its lines follow the first run's in the same file.
std::FILE* open_live(const std::string& path) {
  static std::set<std::string> opened;
  if (path == "-") return stdout;
  const bool first = opened.insert(path).second;
  return std::fopen(path.c_str(), first ? "w" : "a");
}

double tick_seconds(const LiveOptions& o) {
  return !o.live.empty() || !o.openmetrics.empty() ? o.live_interval_s : o.progress_every_s;
}

}  // namespace

LivePhases::LivePhases(Comm& comm, const LiveOptions& opts, bool quiet, std::string run_id,
                       const std::atomic<bool>& stop)
    : comm_(comm),
      stop_(stop),
      opts_(opts),
      wanted_(live_watch_wanted(opts, quiet)),
      run_id_(std::move(run_id)) {
  if (!wanted_) return;
  plain_ = comm.rank() == 0 && !quiet && opts.progress_every_s > 0 && !isatty(2);
  if (comm.size() > 1) {
    // Every rank asks (a collective call); a library without MPI_THREAD_MULTIPLE leaves rank 0 alone.
    if (Status d = comm.duplicate(&watch_comm_); !d.ok()) {
      watch_comm_.reset();
      if (comm.rank() == 0) {
        std::fprintf(stderr, "iofab: live figures are rank 0's alone: %s\n", d.message().c_str());
      }
    } else {
      watch_comm_->set_stop_flag(&stop_, 0);  // no grace: the run's own calls have theirs
    }
  }
  if (comm.rank() == 0 && !opts.live.empty()) {
    live_ = open_live(opts.live);
    if (live_ == nullptr) std::fprintf(stderr, "iofab: --live: cannot open %s\n", opts.live.c_str());
  }
}

LivePhases::~LivePhases() {
  if (live_ != nullptr && live_ != stdout) std::fclose(live_);
}

std::unique_ptr<LivePhases::Watch> LivePhases::watch(const std::string& phase, Progress& progress) {
  if (!wanted_ || (comm_.rank() != 0 && watch_comm_ == nullptr)) return nullptr;
  // One rank on a terminal with no file asked: the terminal's own line shows it all; no tally, no thread.
  if (comm_.size() == 1 && !plain_ && opts_.live.empty() && opts_.openmetrics.empty()) return nullptr;
  last_bytes_ = last_ops_ = 0;
  return std::make_unique<Watch>(*this, phase, progress);
}

void LivePhases::emit(const LiveFrame& f, bool print_progress, uint64_t since_bytes, double since_s) {
  std::lock_guard<std::mutex> lock(mu_);
  last_bytes_ = f.bytes;
  last_ops_ = f.ops;
  if (live_ != nullptr) {
    const std::string line = frame_json(f).dump() + "\n";
    std::fputs(line.c_str(), live_);
    std::fflush(live_);
  }
  if (!opts_.openmetrics.empty()) write_textfile(opts_.openmetrics, openmetrics_text(f));
  if (print_progress) {
    const std::string line = progress_text(f, since_bytes, since_s);
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
  }
}

void LivePhases::finished(const PhaseReport& pr) {
  std::lock_guard<std::mutex> lock(mu_);
  if (live_ == nullptr || comm_.rank() != 0) return;
  const std::string line = final_json(run_id_, pr.name, phase_status_text(pr.status), pr.seconds, pr.metrics,
                                      last_bytes_, last_ops_)
                               .dump() +
                           "\n";
  std::fputs(line.c_str(), live_);
  std::fflush(live_);
}

LivePhases::Watch::Watch(LivePhases& owner, std::string phase, Progress& progress)
    : owner_(owner), phase_(std::move(phase)), progress_(progress) {
  LiveTally::set_enabled(true);
  last_snap_ = LiveTally::snapshot();
  ops0_ = last_snap_.ops;
  start_ns_ = last_ns_ = last_print_ns_ = mono_ns();
  thread_ = std::thread([this] { loop(); });
}

LivePhases::Watch::~Watch() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
  LiveTally::set_enabled(false);
}

void LivePhases::Watch::loop() {
  const auto tick = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(tick_seconds(owner_.opts_)));
  auto next = std::chrono::steady_clock::now() + tick;
  while (true) {
    bool ending = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_until(lock, next, [this] { return done_; });
      ending = done_;
    }
    // Stopped: no more calls (the other ranks' watchers give up at once too); the report goes first.
    if (owner_.stop_.load() || !round(ending, mono_ns())) return;
    // A late round (a loaded machine, a slow rank) is not made up for: the next comes a tick after it.
    next = std::max(next + tick, std::chrono::steady_clock::now());
  }
}

RankTick LivePhases::Watch::tick() {
  LiveTally::Snapshot s = LiveTally::snapshot();
  RankTick t;
  t.bytes = progress_.done_bytes.load(std::memory_order_relaxed);
  t.planned = progress_.total_bytes.load(std::memory_order_relaxed);
  t.ops = s.ops - ops0_;
  t.interval = LiveTally::between(last_snap_, s);
  last_snap_ = std::move(s);
  return t;
}

// One interval: every rank's counters to rank 0, rank 0's word whether the phase goes on. False: stop.
// A rank whose phase ended goes on sending its final counters until every rank's has (rank 0 ending first
// would otherwise print a last frame with another rank's counters from before its end).
bool LivePhases::Watch::round(bool ending, uint64_t t_ns) {
  RankTick mine = tick();
  mine.done = ending;
  std::vector<RankTick> all{mine};
  int reporting = 1;
  bool last = ending;
  if (Comm* c = owner_.watch_comm_.get()) {
    std::vector<std::string> texts;
    // A failed call has lost a rank; the run's own calls say who. The watcher just stops.
    if (!c->gather(encode_tick(mine), &texts, 0).ok()) return false;
    std::string word;
    if (c->rank() == 0) {
      all.assign(texts.size(), RankTick{});
      std::vector<bool> decoded(texts.size());
      for (size_t r = 0; r < texts.size(); ++r) decoded[r] = decode_tick(texts[r], &all[r]);
      reporting = static_cast<int>(std::count(decoded.begin(), decoded.end(), true));
      word = every_rank_done(all, decoded) ? "end" : "go";
    }
    if (!c->broadcast(&word, 0).ok()) return false;
    last = word == "end";
    if (c->rank() != 0) return !last;
  }
  LiveFrame f = merge_ticks(all, previous_);
  previous_ = std::move(all);
  f.run_id = owner_.run_id_;
  f.phase = phase_;
  f.time = rfc3339_utc_now();
  f.last = last;
  f.elapsed_s = (t_ns - start_ns_) * 1e-9;
  f.interval_s = (t_ns - last_ns_) * 1e-9;
  f.ranks = owner_.comm_.size();
  f.ranks_reporting = reporting;
  if (const TelemetrySampler* s = owner_.sampler) {
    if (std::optional<TelemetrySample> x = s->latest()) f.telemetry = to_json(*x);
  }
  last_ns_ = t_ns;
  // Half a tick early counts: with --progress-every as the tick, every round prints despite jitter.
  const double every = owner_.opts_.progress_every_s;
  const double since = (t_ns - last_print_ns_) * 1e-9;
  const bool print = owner_.plain_ && since >= every - tick_seconds(owner_.opts_) / 2;
  owner_.emit(f, print, f.bytes - last_print_bytes_, since);
  if (print) {
    last_print_ns_ = t_ns;
    last_print_bytes_ = f.bytes;
  }
  return !last;
}

}  // namespace iofab
