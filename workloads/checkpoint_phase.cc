#include "workloads/checkpoint_phase.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <thread>

#include "harness/core/checked_math.h"
#include "harness/core/units.h"
#include "harness/engines/cufile_engine.h"
#include "harness/engines/data_fill.h"
#include "harness/engines/engine.h"
#include "harness/engines/engine_choice.h"
#include "harness/engines/io_buffers.h"
#include "harness/engines/io_pump.h"
#include "harness/fs/run_dir.h"
#include "harness/phase/params.h"
#include "harness/phase/worker_group.h"
#include "harness/stats/io_tally.h"
#include "workloads/checkpoint_budget.h"
#include "workloads/checkpoint_manifest.h"

namespace iofab {
namespace {

using nlohmann::json;

constexpr uint64_t kAlign = 4096;
// The emulated accelerator state an async snapshot copies from is cycled
// through this much memory: enough to stream from RAM, not from cache, without
// doubling the host memory a big shard needs.
constexpr uint64_t kSourceBytes = 64ULL << 20;

struct CheckpointParams {
  std::string engine = "auto";
  bool direct = false;
  unsigned workers = 1;
  double writer_fraction = 1;
  double params = 0;  // 0: the size came from checkpoint_size
  double bytes_per_param = kDefaultBytesPerParam;
  double full_bytes = 0;
  double scale = 1;
  unsigned count = 3;
  double interval_s = 3600;
  double gap_s = 2;
  bool async = false;
  unsigned keep = 1;
  double budget_fraction = kDefaultBudgetFraction;
  uint64_t block_size = 1ULL << 20;
  unsigned queue_depth = 16;
  uint64_t seed = 1;
  uint64_t series_interval_ns = 100'000'000;
};

// One committed checkpoint as one rank saw it; times in ns since that
// checkpoint's start, which every rank takes right after the same barrier.
struct LocalCheckpoint {
  uint64_t stall_ns = 0;
  uint64_t write_start_ns = UINT64_MAX;  // first write's start
  uint64_t write_end_ns = 0;             // last fsync's end
  uint64_t drain_ns = 0;                 // async: the longest writer's drain
  uint64_t bytes = 0;
};

// What rank 0 did to commit one checkpoint.
struct CommitRecord {
  uint64_t step = 0;
  uint64_t commit_ns = 0;  // manifest + fsyncs + rename
  uint64_t delete_ns = 0;  // removing checkpoints beyond keep
  uint64_t deleted = 0;
  bool overran = false;  // async: it was still draining when the next one was due
};

struct Writer {
  bool active = false;  // writer_fraction < 1 leaves some workers idle
  uint64_t shard = 0;
  std::string file;
  std::unique_ptr<Engine> engine;
  IoBuffers ring;     // sync: queue_depth blocks, filled once, stamped before each write
  IoBuffers staging;  // async: the host copy of the shard, one buffer per block
  IoBuffers source;   // async: the emulated accelerator state
  IoTally tally;
  // The checkpoint in progress, in ns of CLOCK_MONOTONIC.
  Status status;
  uint64_t bytes = 0;
  uint64_t xxh3 = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  std::thread drain;
  std::atomic<bool> drained{true};
};

std::string rfc3339_utc_now() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

uint64_t unix_ns_now() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

// MemAvailable from /proc/meminfo in bytes; 0 when unknown.
uint64_t mem_available_bytes() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (f >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

// Emulated compute between bursts: sleeps seconds, waking early on stop.
void idle_for(double seconds, const std::atomic<bool>& stop) {
  const uint64_t until = now_ns() + static_cast<uint64_t>(seconds * 1e9);
  while (!stop.load(std::memory_order_relaxed)) {
    const uint64_t now = now_ns();
    if (now >= until) break;
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<uint64_t>(until - now, 20'000'000)));
  }
}

Status status_from(int code, const std::string& msg) {
  return Status::FromCode(static_cast<Status::Code>(code), msg);
}

double finite_or_zero(double v) { return std::isfinite(v) ? v : 0; }

class CheckpointPhase final : public Phase {
 public:
  explicit CheckpointPhase(CheckpointParams p) : p_(std::move(p)) {}

  std::optional<uint64_t> planned_bytes(int ranks) const override {
    // At the peak, `keep` committed checkpoints and the one being written.
    const ShardLayout l = layout(ranks);
    return checked_product({static_cast<uint64_t>(p_.keep) + 1, l.shards, l.shard_bytes});
  }
  // The newest `keep` checkpoints stay for a restore phase until the run ends.
  std::optional<uint64_t> retained_bytes(int ranks) const override {
    const ShardLayout l = layout(ranks);
    return checked_product({static_cast<uint64_t>(p_.keep), l.shards, l.shard_bytes});
  }

  Status run(PhaseContext& ctx, PhaseResult* result) override;

 private:
  ShardLayout layout(int ranks) const {
    return shard_layout(p_.full_bytes, p_.scale, ranks, p_.workers, p_.writer_fraction);
  }
  uint64_t writer_seed(int rank, unsigned w) const {
    return p_.seed * 1000003 + static_cast<uint64_t>(rank) * 4099 + w;
  }

  Status setup(const PhaseContext& ctx, Writer* wk, int rank, unsigned w, const ShardLayout& l) const;
  // Writes wk's shard of step into phase/step-N.tmp/ and fsyncs it, from the
  // ring (sync) or the staging copy (async), hashing each block as it goes.
  Status write_shard(Writer* wk, int phase_fd, uint64_t step, int rank, unsigned w, const ShardLayout& l,
                     uint64_t phase_t0, const PhaseContext& ctx) const;
  Status write_shard_file(Writer* wk, int phase_fd, uint64_t step, int rank, unsigned w, const ShardLayout& l,
                          uint64_t phase_t0, const PhaseContext& ctx) const;
  // Async stall: the copy of the shard from accelerator state to host staging.
  void snapshot(Writer* wk, const ShardLayout& l) const;
  // Every rank's shard entries go to rank 0, which commits step; every rank
  // gets the outcome. Rank 0 then removes checkpoints beyond keep.
  Status collect_and_commit(PhaseContext& ctx, int phase_fd, uint64_t step, const ShardLayout& l,
                            std::vector<Writer>& writers, const Status& local, CommitRecord* rec) const;
  Status commit_step(int phase_fd, uint64_t step, const std::string& phase_name,
                     std::vector<ShardEntry> shards) const;

  CheckpointParams p_;
};

Status CheckpointPhase::setup(const PhaseContext& ctx, Writer* wk, int rank, unsigned w,
                              const ShardLayout& l) const {
  if (!wk->active) return Status::Ok();
  EngineOptions eo;
  eo.queue_depth = p_.queue_depth;
  eo.direct = p_.direct;
  eo.max_files = 2;  // one shard file at a time, removed after each checkpoint
  Status s = make_phase_engine(ctx, resolve_engine_name(p_.engine), eo, &wk->engine);
  if (!s.ok()) return s;
  BlockFiller filler(writer_seed(rank, w));
  if (!p_.async) {
    s = IoBuffers::allocate(p_.queue_depth, p_.block_size, &wk->ring);
    if (!s.ok()) return s;
    for (size_t i = 0; i < wk->ring.count(); ++i) filler.fill(wk->ring.at(i), wk->ring.size());
    return wk->engine->register_buffers(wk->ring.iovecs());
  }
  const uint64_t blocks = (l.shard_bytes + p_.block_size - 1) / p_.block_size;
  s = IoBuffers::allocate(blocks, p_.block_size, &wk->staging);
  if (!s.ok()) return Status::IoError(s.message() + " (async mode holds a host copy of each shard)");
  const uint64_t src_blocks = std::clamp<uint64_t>(kSourceBytes / p_.block_size, 1, blocks);
  s = IoBuffers::allocate(src_blocks, p_.block_size, &wk->source);
  if (!s.ok()) return s;
  for (size_t i = 0; i < wk->source.count(); ++i) filler.fill(wk->source.at(i), wk->source.size());
  return Status::Ok();
}

void CheckpointPhase::snapshot(Writer* wk, const ShardLayout& l) const {
  uint64_t off = 0;
  for (size_t b = 0; off < l.shard_bytes; ++b) {
    const size_t len = static_cast<size_t>(std::min<uint64_t>(p_.block_size, l.shard_bytes - off));
    std::memcpy(wk->staging.at(b), wk->source.at(b % wk->source.count()), len);
    off += len;
  }
}

Status CheckpointPhase::write_shard(Writer* wk, int phase_fd, uint64_t step, int rank, unsigned w,
                                    const ShardLayout& l, uint64_t phase_t0, const PhaseContext& ctx) const {
  wk->bytes = 0;
  wk->start_ns = now_ns();
  Status s = write_shard_file(wk, phase_fd, step, rank, w, l, phase_t0, ctx);
  wk->end_ns = now_ns();
  wk->tally.span(wk->start_ns - phase_t0, wk->end_ns - phase_t0);
  if (!s.ok() && s.code() != Status::Code::kInterrupted)
    return Status::IoError(wk->file + ": " + s.message());
  return s;
}

Status CheckpointPhase::write_shard_file(Writer* wk, int phase_fd, uint64_t step, int rank, unsigned w,
                                         const ShardLayout& l, uint64_t phase_t0,
                                         const PhaseContext& ctx) const {
  int dir_fd = -1;
  Status s = make_dir_at(phase_fd, step_tmp_name(step), &dir_fd);
  if (!s.ok()) return s;
  int fd = -1;
  s = open_file_at(dir_fd, wk->file, O_WRONLY | (p_.direct ? O_DIRECT : 0), &fd);
  close(dir_fd);
  if (!s.ok()) {
    if (p_.direct && s.message().find("Invalid argument") != std::string::npos) {
      return Status::IoError(s.message() + " (this filesystem does not support O_DIRECT; set direct: false)");
    }
    return s;
  }
  int handle = -1;
  s = wk->engine->add_file(fd, &handle);
  if (!s.ok()) {
    close(fd);
    return s;
  }
  StreamingXxh3 hash;
  // Every checkpoint's data differs: the stamp carries the step in the block id.
  BlockFiller stamper(writer_seed(rank, w) + 17);
  const bool staged = p_.async;
  const IoBuffers& bufs = staged ? wk->staging : wk->ring;
  const uint64_t blocks = (l.shard_bytes + p_.block_size - 1) / p_.block_size;
  const auto slots =
      static_cast<unsigned>(std::min<uint64_t>(p_.queue_depth, staged ? blocks : p_.queue_depth));
  IoPump pump(*wk->engine, bufs, slots, !staged, &wk->tally.latency, &wk->tally.series, phase_t0,
              &ctx.progress.done_bytes, &ctx.stop);
  uint64_t offset = 0;
  uint64_t block = 0;
  s = pump.run(
      [&](unsigned, IoRequest& req) {
        if (offset >= l.shard_bytes) return false;
        // What is staged goes to the device now, so it works while this block is stamped and hashed.
        wk->engine->commit();
        req.file = handle;
        req.op = IoOp::kWrite;
        req.offset = offset;
        req.len = static_cast<uint32_t>(std::min<uint64_t>(p_.block_size, l.shard_bytes - offset));
        if (staged) {
          req.buf = wk->staging.at(block);
          req.buf_index = -1;
        }
        stamper.stamp(req.buf, req.len, (step << 32) | block);
        hash.update(req.buf, req.len);
        offset += req.len;
        ++block;
        return true;
      },
      [](unsigned, const IoRequest&) {});
  wk->bytes = pump.stats().bytes;
  wk->tally.bytes += pump.stats().bytes;
  wk->tally.ios += pump.stats().ios;
  if (s.ok()) s = wk->engine->fsync(handle);
  Status rm = wk->engine->remove_file(handle);
  if (close(fd) != 0 && s.ok()) s = Status::FromErrno("close " + wk->file, errno);
  if (s.ok() && !rm.ok()) s = rm;
  wk->xxh3 = hash.digest();
  return s;
}

Status CheckpointPhase::commit_step(int phase_fd, uint64_t step, const std::string& phase_name,
                                    std::vector<ShardEntry> shards) const {
  const std::string tmp = step_tmp_name(step);
  const std::string dst = step_dir_name(step);
  const int tmp_fd = openat(phase_fd, tmp.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (tmp_fd < 0) return Status::FromErrno("open " + tmp, errno);
  std::sort(shards.begin(), shards.end(),
            [](const ShardEntry& a, const ShardEntry& b) { return a.name < b.name; });
  Manifest m;
  m.step = step;
  m.phase = phase_name;
  m.created = rfc3339_utc_now();
  m.committed_unix_ns = unix_ns_now();
  m.full_checkpoint_bytes = p_.full_bytes;
  m.scale = p_.scale;
  m.shards = std::move(shards);
  Status s = write_manifest_at(tmp_fd, m);
  // The shards' and the manifest's names are durable before the rename publishes them.
  if (s.ok()) s = fsync_dir(tmp_fd, tmp);
  close(tmp_fd);
  if (!s.ok()) return s;
  if (renameat(phase_fd, tmp.c_str(), phase_fd, dst.c_str()) != 0) {
    return Status::FromErrno("rename " + tmp + " to " + dst, errno);
  }
  return fsync_dir(phase_fd, phase_name);
}

Status CheckpointPhase::collect_and_commit(PhaseContext& ctx, int phase_fd, uint64_t step,
                                           const ShardLayout& l, std::vector<Writer>& writers,
                                           const Status& local, CommitRecord* rec) const {
  const int rank = ctx.comm.rank();
  json mine = {{"error", local.ok() ? "" : local.message()}, {"code", static_cast<int>(local.code())}};
  json shards = json::array();
  for (unsigned w = 0; w < writers.size(); ++w) {
    const Writer& wk = writers[w];
    if (!wk.active) continue;
    shards.push_back({{"name", wk.file}, {"bytes", wk.bytes}, {"xxh3", wk.xxh3}, {"worker", w}});
  }
  mine["shards"] = shards;
  std::vector<std::string> all;
  Status g = ctx.comm.gather(mine.dump(), &all, 0);
  if (!g.ok()) return g;
  std::string outcome;
  if (rank == 0) {
    Status worst;
    std::vector<ShardEntry> entries;
    for (size_t r = 0; r < all.size(); ++r) {
      json j = json::parse(all[r], nullptr, false);
      if (j.is_discarded() || !j.contains("shards")) {
        keep_worst(&worst, Status::Internal("rank " + std::to_string(r) + " sent a bad checkpoint result"));
        continue;
      }
      if (!j["error"].get<std::string>().empty()) {
        const std::string who = all.size() > 1 ? "rank " + std::to_string(r) + ": " : "";
        keep_worst(&worst, status_from(j["code"].get<int>(), who + j["error"].get<std::string>()));
      }
      for (const auto& e : j["shards"]) {
        entries.push_back({e["name"].get<std::string>(), e["bytes"].get<uint64_t>(),
                           e["xxh3"].get<uint64_t>(), static_cast<int>(r), e["worker"].get<int>()});
      }
    }
    if (worst.ok() && entries.size() != l.shards) {
      worst = Status::Internal("step " + std::to_string(step) + ": " + std::to_string(entries.size()) +
                               " shards written, expected " + std::to_string(l.shards));
    }
    if (worst.ok()) {
      const uint64_t c0 = now_ns();
      worst = commit_step(phase_fd, step, ctx.phase_name, std::move(entries));
      rec->commit_ns = now_ns() - c0;
    }
    outcome =
        json({{"error", worst.ok() ? "" : worst.message()}, {"code", static_cast<int>(worst.code())}}).dump();
  }
  Status b = ctx.comm.broadcast(&outcome, 0);
  if (!b.ok()) return b;
  json o = json::parse(outcome, nullptr, false);
  if (o.is_discarded()) return Status::Internal("bad commit outcome from rank 0");
  Status st = status_from(o["code"].get<int>(), o["error"].get<std::string>());
  rec->step = step;
  return st;
}

// Removes committed checkpoints beyond keep, oldest first (rank 0).
Status rotate(int phase_fd, unsigned keep, uint64_t* deleted) {
  StepListing steps;
  Status s = list_steps_at(phase_fd, &steps);
  if (!s.ok()) return s;
  *deleted = 0;
  for (size_t i = 0; i + keep < steps.committed.size(); ++i) {
    s = remove_tree_at(phase_fd, step_dir_name(steps.committed[i]));
    if (!s.ok()) return s;
    ++*deleted;
  }
  return Status::Ok();
}

Status CheckpointPhase::run(PhaseContext& ctx, PhaseResult* result) {
  const int rank = ctx.comm.rank();
  const int ranks = ctx.comm.size();
  const ShardLayout l = layout(ranks);
  std::vector<Writer> writers(p_.workers);
  uint64_t my_bytes = 0;
  for (unsigned w = 0; w < p_.workers; ++w) {
    Writer& wk = writers[w];
    wk.tally = IoTally(p_.series_interval_ns);
    wk.shard = static_cast<uint64_t>(w) * static_cast<uint64_t>(ranks) + static_cast<uint64_t>(rank);
    wk.active = wk.shard < l.shards;
    wk.file = shard_file_name(wk.shard, l.shards);
    if (wk.active) my_bytes += l.shard_bytes;
  }
  ctx.progress.total_bytes.store(my_bytes * p_.count);

  int phase_fd = -1;
  Status st = make_dir_at(ctx.run_dir_fd, ctx.phase_name, &phase_fd);
  // Rank 0 clears what an interrupted run left and numbers the steps after any committed one.
  std::string start;
  uint64_t stale_removed = 0;
  if (rank == 0) {
    uint64_t base = 0;
    StepListing steps;
    if (st.ok()) st = list_steps_at(phase_fd, &steps);
    if (st.ok()) {
      for (const auto& t : steps.tmp) {
        Status rm = remove_tree_at(phase_fd, t);
        if (!rm.ok()) st = rm;
        ++stale_removed;
      }
      if (!steps.committed.empty()) base = steps.committed.back();
    }
    start = std::to_string(base);
  }
  Status b = ctx.comm.broadcast(&start, 0);
  if (b.ok()) b = ctx.comm.barrier();  // rank 0's cleanup is done before anyone writes
  const uint64_t base_step = std::strtoull(start.c_str(), nullptr, 10);

  if (st.ok() && p_.async) {
    uint64_t need = 0;
    for (const auto& wk : writers) need += wk.active ? l.shard_bytes : 0;
    const uint64_t avail = mem_available_bytes();
    if (avail != 0 && need > avail / 10 * 9) {
      st = Status::IoError("async mode holds a host copy of every shard: this rank needs " +
                           units::format_bytes(static_cast<double>(need)) + " of staging memory and " +
                           units::format_bytes(static_cast<double>(avail)) +
                           " is available; raise scale, use more ranks or mode: sync");
    }
  }
  // Untimed setup: engines, buffers filled once. Every rank agrees before the first burst.
  WorkerRun setup_run;
  Status sb = run_workers(
      ctx.comm, p_.workers, [&](unsigned w) { return st.ok() ? setup(ctx, &writers[w], rank, w, l) : st; },
      [](unsigned, uint64_t) { return Status::Ok(); }, &setup_run);
  Status local = b.ok() ? (sb.ok() ? setup_run.first_error() : sb) : b;
  std::vector<double> oks;
  Status ag = ctx.comm.all_gather(local.ok() ? 1.0 : 0.0, &oks);
  bool go = ag.ok() && std::all_of(oks.begin(), oks.end(), [](double v) { return v == 1.0; });
  Status worst = local;
  if (!go && worst.ok()) worst = ag.ok() ? Status::IoError("another rank failed to set up") : ag;

  std::vector<LocalCheckpoint> done;          // committed checkpoints, this rank's view
  std::vector<CommitRecord> commits;          // rank 0
  const uint64_t phase_t0 = setup_run.t0_ns;  // series and spans count from here
  uint64_t overruns = 0;
  // Async: the checkpoint that is draining in the background, not yet committed.
  bool pending = false;
  uint64_t pending_step = 0;
  LocalCheckpoint pending_cp;

  // Waits for the drains, then commits the pending step on every rank.
  auto finish_pending = [&](bool overran) -> Status {
    Status s;
    for (auto& wk : writers) {
      if (wk.drain.joinable()) wk.drain.join();
      if (wk.active) {
        keep_worst(&s, wk.status);
        pending_cp.bytes += wk.bytes;
        pending_cp.drain_ns = std::max(pending_cp.drain_ns, wk.end_ns - wk.start_ns);
      }
    }
    CommitRecord rec;
    rec.overran = overran;
    Status c = collect_and_commit(ctx, phase_fd, pending_step, l, writers, s, &rec);
    pending = false;
    if (c.ok()) {
      done.push_back(pending_cp);
      if (rank == 0) {
        const uint64_t d0 = now_ns();
        // Reported, never a reason to stop: the checkpoints themselves are whole, and only rank 0 knows.
        keep_worst(&worst, rotate(phase_fd, p_.keep, &rec.deleted));
        rec.delete_ns = now_ns() - d0;
        commits.push_back(rec);
      }
    }
    return c;
  };

  for (unsigned k = 0; go && k < p_.count; ++k) {
    const uint64_t step = base_step + 1 + k;
    if (p_.async && pending) {
      // A new checkpoint is due: the previous one must have drained by now.
      bool drained = true;
      for (const auto& wk : writers) drained = drained && wk.drained.load();
      std::vector<double> all;
      Status a = ctx.comm.all_gather(drained ? 1.0 : 0.0, &all);
      // A drain cut short by Ctrl-C is an interruption, not storage falling behind.
      const bool overran = !ctx.stop.load() && a.ok() &&
                           !std::all_of(all.begin(), all.end(), [](double v) { return v == 1.0; });
      if (overran) ++overruns;
      Status c = a.ok() ? finish_pending(overran) : a;
      if (!c.ok()) {
        keep_worst(&worst, c);
        break;
      }
    }
    for (auto& wk : writers) wk.status = Status::Ok();
    WorkerRun burst;
    Status bb = run_workers(
        ctx.comm, p_.workers, [](unsigned) { return Status::Ok(); },
        [&](unsigned w, uint64_t) {
          Writer& wk = writers[w];
          if (!wk.active) return Status::Ok();
          if (ctx.stop.load()) return Status::Interrupted();
          if (!p_.async) return write_shard(&wk, phase_fd, step, rank, w, l, phase_t0, ctx);
          wk.start_ns = now_ns();
          snapshot(&wk, l);
          wk.end_ns = now_ns();
          return Status::Ok();
        },
        &burst);
    const uint64_t t0 = burst.t0_ns;
    Status mine = bb.ok() ? burst.first_error() : bb;
    LocalCheckpoint cp;
    for (const auto& wk : writers) {
      if (!wk.active || wk.end_ns < t0) continue;
      cp.write_start_ns = std::min(cp.write_start_ns, wk.start_ns - t0);
      cp.write_end_ns = std::max(cp.write_end_ns, wk.end_ns - t0);
    }
    if (!p_.async) {
      for (const auto& wk : writers) cp.bytes += wk.active ? wk.bytes : 0;
      CommitRecord rec;
      Status c = collect_and_commit(ctx, phase_fd, step, l, writers, mine, &rec);
      cp.stall_ns = now_ns() - t0;
      if (!c.ok()) {
        keep_worst(&worst, c);
        break;
      }
      done.push_back(cp);
      if (rank == 0) {
        const uint64_t d0 = now_ns();
        Status r = rotate(phase_fd, p_.keep, &rec.deleted);
        rec.delete_ns = now_ns() - d0;
        commits.push_back(rec);
        keep_worst(&worst, r);  // reported, never a reason to stop: only rank 0 knows
      }
      if (k + 1 < p_.count) idle_for(p_.gap_s, ctx.stop);
      continue;
    }
    // Async: the stall ends when every writer's copy is in host memory.
    cp.stall_ns = cp.write_end_ns == 0 ? now_ns() - t0 : cp.write_end_ns;
    std::vector<double> all;
    Status a = ctx.comm.all_gather(mine.ok() ? 1.0 : 0.0, &all);
    if (!a.ok() || !std::all_of(all.begin(), all.end(), [](double v) { return v == 1.0; })) {
      keep_worst(&worst, mine.ok() ? (a.ok() ? Status::IoError("another rank's snapshot failed") : a) : mine);
      break;
    }
    pending = true;
    pending_step = step;
    pending_cp = cp;
    // The drain runs while the job computes; its span is measured from the snapshot's end.
    for (unsigned w = 0; w < p_.workers; ++w) {
      Writer& wk = writers[w];
      if (!wk.active) continue;
      wk.drained.store(false);
      wk.drain = std::thread([&, w, step] {
        Writer& me = writers[w];
        me.status = write_shard(&me, phase_fd, step, rank, w, l, phase_t0, ctx);
        me.drained.store(true);
      });
    }
    idle_for(p_.gap_s, ctx.stop);
  }
  if (pending) {
    Status c = finish_pending(false);
    keep_worst(&worst, c);
  }
  for (auto& wk : writers) {
    if (wk.drain.joinable()) wk.drain.join();
    wk.engine.reset();
  }
  if (rank == 0 && phase_fd >= 0 && !ctx.keep) {
    // A step that did not commit leaves only its .tmp; without --keep it goes now.
    StepListing steps;
    if (list_steps_at(phase_fd, &steps).ok()) {
      for (const auto& t : steps.tmp) remove_tree_at(phase_fd, t);
    }
  }
  if (phase_fd >= 0) close(phase_fd);

  // One gather of everything each rank measured.
  IoTally tally(p_.series_interval_ns);
  for (auto& wk : writers) tally.merge(wk.tally);
  json cps = json::array();
  for (const auto& c : done) {
    cps.push_back({{"stall_ns", c.stall_ns},
                   {"write_start_ns", c.write_start_ns == UINT64_MAX ? 0 : c.write_start_ns},
                   {"write_end_ns", c.write_end_ns},
                   {"drain_ns", c.drain_ns},
                   {"bytes", c.bytes},
                   {"wrote", c.write_start_ns != UINT64_MAX}});
  }
  json local_result = {{"rank", rank},
                       {"tally", tally.to_json()},
                       {"checkpoints", cps},
                       {"error", worst.ok() ? "" : worst.message()},
                       {"code", static_cast<int>(worst.code())}};
  std::vector<std::string> gathered;
  Status g = ctx.comm.gather(local_result.dump(), &gathered, 0);
  if (!g.ok()) return g;
  if (rank != 0) return worst;

  IoTally total(p_.series_interval_ns);
  json per_rank = json::array();
  std::vector<json> rank_cps;
  for (size_t r = 0; r < gathered.size(); ++r) {
    json j = json::parse(gathered[r], nullptr, false);
    IoTally t(p_.series_interval_ns);
    if (j.is_discarded() || !t.from_json(j["tally"]) || !j["checkpoints"].is_array()) {
      return Status::Internal("rank " + std::to_string(r) + " sent a bad result");
    }
    total.merge(t);
    rank_cps.push_back(j["checkpoints"]);
    per_rank.push_back({{"rank", r}, {"bytes", t.bytes}, {"error", j["error"]}});
    if (!j["error"].get<std::string>().empty()) {
      keep_worst(&worst, status_from(j["code"].get<int>(),
                                     (gathered.size() > 1 ? "rank " + std::to_string(r) + ": " : "") +
                                         j["error"].get<std::string>()));
    }
  }

  // Per checkpoint: the slowest rank's stall, the span of all ranks' writes.
  const double allowed = allowed_stall_seconds(p_.interval_s, p_.budget_fraction);
  const double full = p_.full_bytes;
  json per_cp = json::array();
  double stall_max = 0, stall_sum = 0, drain_max = 0, commit_max = 0, delete_max = 0;
  double write_bytes_sum = 0, write_seconds_sum = 0, bytes_per_cp = 0;
  double worst_projected = 0;
  uint64_t committed = 0;
  for (size_t i = 0; i < done.size() && i < commits.size(); ++i) {
    double stall = 0, drain = 0, bytes = 0;
    uint64_t ws = UINT64_MAX, we = 0;
    for (const auto& rc : rank_cps) {
      if (i >= rc.size()) continue;
      const json& c = rc[i];
      stall = std::max(stall, c["stall_ns"].get<uint64_t>() * 1e-9);
      drain = std::max(drain, c["drain_ns"].get<uint64_t>() * 1e-9);
      bytes += c["bytes"].get<double>();
      if (c["wrote"].get<bool>()) {
        ws = std::min(ws, c["write_start_ns"].get<uint64_t>());
        we = std::max(we, c["write_end_ns"].get<uint64_t>());
      }
    }
    const CommitRecord& rec = commits[i];
    // Sync: the burst's writes and fsyncs; async: the longest drain (writes and fsyncs in the background).
    const double write_s = p_.async ? drain : (ws == UINT64_MAX || we < ws ? 0.0 : (we - ws) * 1e-9);
    const BudgetVerdict v = evaluate_budget(allowed, stall, bytes, full);
    ++committed;
    bytes_per_cp = bytes;
    stall_max = std::max(stall_max, stall);
    stall_sum += stall;
    drain_max = std::max(drain_max, drain);
    commit_max = std::max(commit_max, rec.commit_ns * 1e-9);
    delete_max = std::max(delete_max, rec.delete_ns * 1e-9);
    write_bytes_sum += bytes;
    write_seconds_sum += write_s;
    worst_projected = std::max(worst_projected, v.projected_seconds);
    json cpj = {{"step", rec.step},
                {"bytes", bytes},
                {"stall_seconds", stall},
                {"write_seconds", write_s},
                {"write_bytes_per_s", write_s > 0 ? bytes / write_s : 0.0},
                {"commit_seconds", rec.commit_ns * 1e-9},
                {"delete_seconds", rec.delete_ns * 1e-9},
                {"deleted_checkpoints", rec.deleted},
                {"budget", to_json(v)}};
    if (p_.async) {
      cpj["drain_seconds"] = drain;
      cpj["drained_before_next"] = !rec.overran;
      if (rec.overran) cpj["budget"]["passed"] = false;
    }
    per_cp.push_back(cpj);
  }
  // The overall verdict is the worst checkpoint's: every checkpoint must fit the budget.
  const BudgetVerdict overall = evaluate_budget(allowed, stall_max, bytes_per_cp, full);

  auto& m = result->metrics;
  m["checkpoints"] = static_cast<double>(committed);
  m["checkpoint_bytes"] = static_cast<double>(l.checkpoint_bytes());
  m["full_checkpoint_bytes"] = full;
  m["shards"] = static_cast<double>(l.shards);
  m["write_bytes"] = static_cast<double>(total.bytes);
  m["write_bytes_per_s"] = write_seconds_sum > 0 ? write_bytes_sum / write_seconds_sum : 0.0;
  m["stall_seconds_max"] = stall_max;
  m["stall_seconds_mean"] = committed > 0 ? stall_sum / static_cast<double>(committed) : 0.0;
  m["drain_seconds_max"] = drain_max;
  m["commit_seconds_max"] = commit_max;
  m["delete_seconds_max"] = delete_max;
  m["allowed_stall_seconds"] = allowed;
  m["required_bytes_per_s"] = finite_or_zero(overall.required_bytes_per_s);
  m["stall_bytes_per_s"] = overall.measured_bytes_per_s;
  m["projected_stall_seconds"] = finite_or_zero(overall.projected_seconds);
  m["budget_margin"] = finite_or_zero(overall.margin);
  m["latency_p50_s"] = total.latency.percentile(0.50) * 1e-9;
  m["latency_p99_s"] = total.latency.percentile(0.99) * 1e-9;
  m["latency_max_s"] = total.latency.max() * 1e-9;
  if (p_.async) {
    m["drain_overruns"] = static_cast<double>(overruns);
    const double projected_drain = bytes_per_cp > 0 ? drain_max * full / bytes_per_cp : 0.0;
    m["projected_drain_seconds"] = projected_drain;
    // The background write of a full-size checkpoint must end before the next one is due.
    m["drain_margin"] = projected_drain > 0
                            ? std::max(0.0, p_.interval_s - overall.projected_seconds) / projected_drain
                            : 0.0;
  }

  json budget = to_json(overall);
  budget["rule"] = "stall <= budget_fraction x interval";
  budget["budget_fraction"] = p_.budget_fraction;
  budget["interval_seconds"] = p_.interval_s;
  budget["scale"] = p_.scale;
  budget["assumption"] =
      "projected stall = full-size checkpoint bytes / the aggregate bytes/s measured on the slowest "
      "checkpoint "
      "of this run (" +
      std::to_string(l.shards) + " writers): it assumes that bandwidth holds at full scale";
  budget["worst_checkpoint_projected_seconds"] = finite_or_zero(worst_projected);
  result->details["budget"] = budget;
  result->details["checkpoints"] = per_cp;
  result->details["mode"] = p_.async ? "async" : "sync";
  result->details["stall_definition"] =
      p_.async
          ? "copy of every shard into host staging memory; the write and its fsync drain in the background"
          : "write + fsync of every shard + commit (manifest, fsyncs, rename)";
  result->details["layout"] = {{"ranks", ranks},
                               {"workers", p_.workers},
                               {"writer_fraction", p_.writer_fraction},
                               {"shards", l.shards},
                               {"shard_bytes", l.shard_bytes},
                               {"checkpoint_bytes", l.checkpoint_bytes()},
                               {"full_checkpoint_bytes", full},
                               {"scale", p_.scale},
                               {"folder", ctx.run_dir_path + "/" + ctx.phase_name},
                               {"kept_checkpoints", p_.keep}};
  if (p_.params > 0) {
    result->details["model"] = {{"params", p_.params}, {"bytes_per_param", p_.bytes_per_param}};
  }
  result->details["timing"] = {{"interval_seconds", p_.interval_s},
                               {"gap_seconds", p_.gap_s},
                               {"note",
                                "interval is the training job's checkpoint interval (the budget); gap is "
                                "how long this run computed between checkpoints"}};
  result->details["stale_tmp_removed"] = stale_removed;
  result->details["latency"] = latency_summary_json(total.latency);
  result->details["latency_histogram"] = total.latency.to_json();
  result->details["series"] = total.series.to_json();
  result->details["per_rank"] = per_rank;
  result->details["engine"] = resolve_engine_name(p_.engine);
  if (result->details["engine"] == "cufile") result->details["engine_mode"] = cufile_mode_text();
  if (!p_.direct) {
    result->warnings.push_back(
        "buffered writes (direct: false): the page cache absorbs writes until each shard's "
        "fsync, which is inside the measured time");
  }
  if (p_.async && overruns > 0) {
    const std::string msg = std::to_string(overruns) +
                            " checkpoint(s) started before the previous one had drained "
                            "(longest drain " +
                            units::format_duration(drain_max) + ", gap " + units::format_duration(p_.gap_s) +
                            "): storage cannot keep up with asynchronous "
                            "checkpoints at this gap";
    result->warnings.push_back(msg);
    keep_worst(&worst, Status::IoError(msg));
  }
  return worst;
}

}  // namespace

ShardLayout shard_layout(double full_bytes, double scale, int ranks, unsigned workers,
                         double writer_fraction) {
  ShardLayout l;
  const double writers = static_cast<double>(ranks) * workers * writer_fraction;
  l.shards = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(writers)));
  l.shards = std::min<uint64_t>(l.shards, static_cast<uint64_t>(ranks) * workers);
  const double per_shard = std::ceil(full_bytes / scale / static_cast<double>(l.shards));
  const auto bytes = static_cast<uint64_t>(std::max(1.0, per_shard));
  l.shard_bytes = (bytes + kAlign - 1) / kAlign * kAlign;
  return l;
}

std::string shard_file_name(uint64_t shard, uint64_t shards) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "shard-%05llu-of-%05llu.bin", static_cast<unsigned long long>(shard),
                static_cast<unsigned long long>(shards));
  return buf;
}

std::unique_ptr<Phase> parse_checkpoint(ParamReader& r) {
  CheckpointParams p;
  p.engine = r.choice("engine", "auto", {"auto", "psync", "io_uring", "cufile", "null"});
  p.direct = r.boolean("direct", false);
  p.workers = static_cast<unsigned>(r.integer("workers", 1, 1, 1024));
  p.writer_fraction = r.fraction("writer_fraction", 1, kMinWriterFraction, 1);
  const bool has_params = r.raw("params") != nullptr;
  const bool has_bpp = r.raw("bytes_per_param") != nullptr;
  const bool has_size = r.raw("checkpoint_size") != nullptr;
  if (has_params) {
    p.params = r.count("params", 0, kMinParams, kMaxParams);
    p.bytes_per_param = r.count("bytes_per_param", kDefaultBytesPerParam, kMinBytesPerParam, kMaxBytesPerParam);
    p.full_bytes = checkpoint_bytes(p.params, p.bytes_per_param);
  }
  if (has_bpp && !has_params)
    r.fail("bytes_per_param", "applies only with params; give params too, or checkpoint_size alone");
  if (has_size && has_params) {
    r.fail("checkpoint_size", "give either params (with bytes_per_param) or checkpoint_size, not both");
  } else if (!has_params) {
    p.full_bytes = static_cast<double>(r.size("checkpoint_size", 1ULL << 30, kAlign));
  }
  p.scale = r.count("scale", 1, 1, 1e12);
  p.count = static_cast<unsigned>(r.integer("count", 3, 1, 100000));
  p.interval_s = r.duration("interval", 3600, kMinIntervalSeconds, kMaxIntervalSeconds);
  p.gap_s = r.duration("gap", 2, 0, 24 * 3600);
  p.async = r.choice("mode", "sync", {"sync", "async"}) == "async";
  p.keep = static_cast<unsigned>(r.integer("keep", 1, 1, 1000));
  p.budget_fraction = r.fraction("budget_fraction", kDefaultBudgetFraction, kMinBudgetFraction, 1);
  p.block_size = r.size("block_size", 1ULL << 20, 512, 256ULL << 20);
  p.queue_depth = static_cast<unsigned>(r.integer("queue_depth", 16, 1, 4096));
  p.seed = static_cast<uint64_t>(r.integer("seed", 1, 0, INT64_MAX));
  p.series_interval_ns = static_cast<uint64_t>(r.duration("series_interval", 0.1, 0.001, 3600) * 1e9);
  if (p.direct && p.block_size % kAlign != 0) {
    r.fail("block_size", "must be a multiple of 4KiB when direct is true (O_DIRECT alignment)");
  }
  if (p.full_bytes / p.scale > 1e18) {
    r.fail("scale", "the written checkpoint (full size / scale) must be below 1e18 bytes");
  } else if (p.full_bytes / p.scale * (p.keep + 1.0) >= 0x1p64) {
    r.fail("keep", "(keep + 1) x the written checkpoint (full size / scale) exceeds 2^64 bytes; lower keep or "
                   "raise scale");
  }
  return std::make_unique<CheckpointPhase>(std::move(p));
}

const std::vector<MetricInfo>& checkpoint_metrics() {
  static const std::vector<MetricInfo> kMetrics = {
      {"budget_margin", Unit::kRatio, Better::kHigher,
       "allowed stall / projected stall at full size, worst checkpoint; >= 1 passes the budget"},
      {"stall_seconds_max", Unit::kSeconds, Better::kLower,
       "longest stall of training by one checkpoint (as run)"},
      {"projected_stall_seconds", Unit::kSeconds, Better::kLower,
       "full-size checkpoint bytes / measured aggregate bytes/s of the slowest checkpoint"},
      {"write_bytes_per_s", Unit::kBytesPerSecond, Better::kHigher,
       "bytes written / time writing (bursts only; sync: writes + fsyncs, async: drains)"},
      {"checkpoint_bytes", Unit::kBytes, Better::kNeither,
       "bytes of one checkpoint as written (full size / scale)"},
      {"full_checkpoint_bytes", Unit::kBytes, Better::kNeither,
       "bytes of one full-size checkpoint (params x bytes_per_param)"},
      {"stall_seconds_mean", Unit::kSeconds, Better::kLower, "mean stall per checkpoint"},
      {"drain_seconds_max", Unit::kSeconds, Better::kLower,
       "async: longest background write + fsync; 0 for sync"},
      {"allowed_stall_seconds", Unit::kSeconds, Better::kNeither, "budget_fraction x interval"},
      {"required_bytes_per_s", Unit::kBytesPerSecond, Better::kNeither,
       "full-size checkpoint bytes / allowed stall: what storage must sustain"},
      {"stall_bytes_per_s", Unit::kBytesPerSecond, Better::kHigher,
       "checkpoint bytes / stall of the slowest checkpoint: the measured aggregate rate the projection uses"},
      {"commit_seconds_max", Unit::kSeconds, Better::kLower, "manifest write, fsyncs and rename, longest"},
      {"delete_seconds_max", Unit::kSeconds, Better::kLower, "removal of checkpoints beyond keep, longest"},
      {"checkpoints", Unit::kCount, Better::kNeither, "checkpoints committed"},
      {"shards", Unit::kCount, Better::kNeither, "shard files per checkpoint (writers)"},
      {"write_bytes", Unit::kBytes, Better::kNeither, "bytes written by all ranks, all checkpoints"},
      {"drain_overruns", Unit::kCount, Better::kLower,
       "async: checkpoints due while the previous one still drained"},
      {"projected_drain_seconds", Unit::kSeconds, Better::kLower, "async: longest drain scaled to full size"},
      {"drain_margin", Unit::kRatio, Better::kHigher,
       "async: (interval - projected stall) / projected drain; >= 1: a full-size drain ends before the next "
       "checkpoint"},
      {"latency_p50_s", Unit::kSeconds, Better::kLower, "per-write latency, median"},
      {"latency_p99_s", Unit::kSeconds, Better::kLower, "per-write latency, 99th percentile"},
      {"latency_max_s", Unit::kSeconds, Better::kLower, "per-write latency, max"},
  };
  return kMetrics;
}

}  // namespace iofab
