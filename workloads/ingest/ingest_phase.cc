#include "workloads/ingest/ingest_phase.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>

#include "harness/comm/rank_gather.h"
#include "harness/core/checked_math.h"
#include "harness/core/mix.h"
#include "harness/engines/beside_thread.h"
#include "harness/engines/data_fill.h"
#include "harness/engines/engine.h"
#include "harness/engines/engine_choice.h"
#include "harness/engines/fill_ahead.h"
#include "harness/engines/io_buffers.h"
#include "harness/engines/io_pump.h"
#include "harness/phase/io_details.h"
#include "harness/phase/io_params.h"
#include "harness/phase/params.h"
#include "harness/phase/reducibility_params.h"
#include "harness/phase/request_metrics.h"
#include "harness/phase/worker_group.h"
#include "harness/stats/io_tally.h"

namespace iofab {
namespace {

using nlohmann::json;

// The I/O params are the shared reader's (read_io_params).
struct IngestParams : IoParams {
  uint64_t files_per_worker = 1;
  uint64_t file_size = 0;
  bool fsync = true;
  uint64_t seed = 1;
  Reducibility reduce;  // off by default: the default data (DataStream)
};

// What a rank sends rank 0 at the end of the phase.
struct RankTally {
  IoTally tally;
  uint64_t fsync_ns = 0;  // the slowest worker's fsync time
  Status status;
  json requests;  // an object store's request figures (null on files)
  static constexpr auto wire_fields() {
    return std::tuple{wire_field("tally", &RankTally::tally), wire_field("fsync_ns", &RankTally::fsync_ns),
                      wire_field("status", &RankTally::status),
                      wire_optional("requests", &RankTally::requests)};
  }
};

// What rank 0 folds from the ranks' tallies as it reads each (docs/scale.md): it never holds every rank's.
struct RankTotals {
  explicit RankTotals(uint64_t series_interval_ns, Status st)
      : total(series_interval_ns), worst(std::move(st)) {}
  void add(size_t r, RankTally&& one);

  IoTally total;
  double rank_min = 0, rank_max = 0;
  uint64_t fsync_max = 0;
  json per_rank = json::array();
  std::vector<json> rank_requests;
  Status worst;  // this rank's status, else the first failed rank's
};

void RankTotals::add(size_t r, RankTally&& one) {
  const IoTally& t = one.tally;
  const Status& rs = one.status;
  total.merge(t);
  fsync_max = std::max(fsync_max, one.fsync_ns);
  const double bps = t.bytes_per_s();
  rank_min = r == 0 ? bps : std::min(rank_min, bps);
  rank_max = r == 0 ? bps : std::max(rank_max, bps);
  per_rank.push_back({{"rank", r},
                      {"bytes", t.bytes},
                      {"seconds", t.seconds()},
                      {"bytes_per_s", bps},
                      {"error", rs.ok() ? "" : rs.message()}});
  if (worst.ok() && !rs.ok() && !rs.message().empty()) {
    worst = rs.code() == Status::Code::kInterrupted
                ? Status::Interrupted(rs.message())
                : Status::IoError("rank " + std::to_string(r) + ": " + rs.message());
  }
  rank_requests.push_back(std::move(one.requests));
}

class IngestPhase final : public Phase {
 public:
  explicit IngestPhase(IngestParams p) : p_(std::move(p)) {}

  std::optional<uint64_t> planned_bytes(int ranks) const override {
    return checked_product({static_cast<uint64_t>(ranks), p_.workers, p_.files_per_worker, p_.file_size});
  }
  size_t longest_path_bytes(int ranks) const override;

  Status run(PhaseContext& ctx, PhaseResult* result) override;

 private:
  struct Worker {
    std::vector<StoreFile> files;  // declared first: destroyed after the engine that uses them
    std::unique_ptr<Engine> engine;
    IoBuffers bufs;
    std::unique_ptr<BesideThread> beside;  // a synchronous engine's: makes the next block (FillAhead)
    std::vector<int> handles;
    IoTally tally;
    uint64_t fsync_ns = 0;
  };

  Status setup(unsigned w, Store& store, const std::string& folder, int rank, Worker* out) const;
  Status body(Worker* wk, uint64_t t0, uint64_t seed, const PhaseContext& ctx) const;
  Status remove_own_files(Store& store, const std::string& folder, int rank) const;
  // The phase's steps, in the order run takes them.
  Status run_workers_once(PhaseContext& ctx, std::vector<Worker>* workers, WorkerRun* run) const;
  RankTally fold_workers(std::vector<Worker>* workers, Status st, Store& store) const;
  Status clean_up(const PhaseContext& ctx) const;
  void put_results(const RankTotals& totals, PhaseResult* result) const;

  IngestParams p_;
};

std::string file_name(int rank, unsigned worker, uint64_t file) {
  return "r" + std::to_string(rank) + "-w" + std::to_string(worker) + "-f" + std::to_string(file);
}

// A name grows with its numbers: the last rank's last worker's last file has the longest.
size_t IngestPhase::longest_path_bytes(int ranks) const {
  const auto last = [](uint64_t n) { return n == 0 ? 0 : n - 1; };
  return file_name(static_cast<int>(last(static_cast<uint64_t>(std::max(ranks, 1)))),
                   static_cast<unsigned>(last(p_.workers)), last(p_.files_per_worker))
      .size();
}

Status IngestPhase::remove_own_files(Store& store, const std::string& folder, int rank) const {
  Status first;
  for (unsigned w = 0; w < p_.workers; ++w) {
    for (uint64_t f = 0; f < p_.files_per_worker; ++f) {
      first.update(store.remove(join_store_path(folder, file_name(rank, w, f))));
    }
  }
  return first;
}

Status IngestPhase::setup(unsigned w, Store& store, const std::string& folder, int rank, Worker* wk) const {
  EngineOptions eo;
  eo.queue_depth = p_.queue_depth;
  eo.direct = p_.direct;
  eo.max_files = static_cast<unsigned>(std::min<uint64_t>(p_.files_per_worker, 4096));
  std::string engine;
  Status s = engine_for_store(store, p_.engine, &engine);
  if (!s.ok()) return s;
  s = make_engine(engine, eo, &wk->engine);
  if (!s.ok()) return s;
  const EngineCaps caps = wk->engine->caps();
  if (caps.sync && caps.moves_data) wk->beside = std::make_unique<BesideThread>();
  // FillAhead takes turns with two buffers, whatever the queue depth.
  s = IoBuffers::allocate(std::max<uint64_t>(p_.queue_depth, wk->beside ? 2 : 1), p_.block_size, &wk->bufs);
  if (!s.ok()) return s;
  s = wk->engine->register_buffers(wk->bufs.iovecs());
  if (!s.ok()) return s;
  OpenOptions open_opts;
  open_opts.direct = p_.direct;
  for (uint64_t f = 0; f < p_.files_per_worker; ++f) {
    StoreFile file;
    s = store.create(join_store_path(folder, file_name(rank, w, f)), open_opts, &file);
    if (!s.ok()) {
      if (p_.direct && s.message().find("Invalid argument") != std::string::npos) {
        return Status::IoError(s.message() +
                               " (this filesystem does not support O_DIRECT; set direct: false)");
      }
      return s;
    }
    int h = -1;
    s = wk->engine->add_store_file(file, &h);
    wk->files.push_back(std::move(file));
    if (!s.ok()) return s;
    wk->handles.push_back(h);
  }
  return Status::Ok();
}

Status IngestPhase::body(Worker* wk, uint64_t t0, uint64_t seed, const PhaseContext& ctx) const {
  const uint64_t start = now_ns();
  // A worker writes its files one after another, front to back: block i of its blocks.
  const uint64_t per_file = (p_.file_size + p_.block_size - 1) / p_.block_size;
  const uint64_t blocks = p_.files_per_worker * per_file;
  const auto offset_of = [&](uint64_t i) { return i % per_file * p_.block_size; };
  const auto len_of = [&](uint64_t i) {
    return static_cast<uint32_t>(std::min(p_.block_size, p_.file_size - offset_of(i)));
  };
  // The default data: a stream per file, each block made at its offset just before it goes. With
  // compressibility or dedup, a worker's blocks are one stream, numbered across its files.
  const ReducibleFiller reducible(seed, p_.reduce);
  const bool reduce = p_.reduce.any();
  const FillAhead::Make make = [&](uint64_t i, void* buf) {
    if (reduce) return reducible.fill(buf, len_of(i), 0, i);
    DataStream(data_key(seed, i / per_file)).fill(buf, len_of(i), offset_of(i));
  };
  // A synchronous engine writes nothing while its thread makes a block: the next is made beside the write.
  std::optional<FillAhead> ahead;
  if (wk->beside) ahead.emplace(wk->bufs, *wk->beside, make);
  IoPump pump(*wk->engine, wk->bufs,
              {.slots = p_.queue_depth,
               .fixed_buffers = true,
               .latency = &wk->tally.latency,
               .series = &wk->tally.series,
               .t0_ns = t0,
               .progress = &ctx.progress.done_bytes,
               .stop = &ctx.stop});
  uint64_t next = 0;
  Status s = pump.run(
      [&](unsigned, IoRequest& req) {
        if (next >= blocks) return false;
        const uint64_t i = next++;
        req.file = wk->handles[i / per_file];
        req.op = IoOp::kWrite;
        req.offset = offset_of(i);
        req.len = len_of(i);
        if (ahead) {
          ahead->take(i, next < blocks, req);
        } else {
          make(i, req.buf);
        }
        return true;
      },
      [](unsigned, const IoRequest&) {});
  wk->tally.bytes = pump.stats().bytes;
  wk->tally.ios = pump.stats().ios;
  // An object store's file exists only once committed, whatever fsync says.
  if (s.ok() && (p_.fsync || ctx.store->caps().commit_per_file)) {
    const uint64_t fs0 = now_ns();
    for (size_t i = 0; i < wk->handles.size() && s.ok(); ++i) s = wk->engine->fsync(wk->handles[i]);
    wk->fsync_ns = now_ns() - fs0;
  }
  wk->tally.span(start - t0, now_ns() - t0);
  return s;
}

// The shape of a phase, as every phase takes it: workers set up and meet at a barrier, then do the timed
// work; each rank folds its workers' figures and cleans up; rank 0 folds the ranks' figures as they come
// and writes the metrics and details. Each step is a function below.
Status IngestPhase::run(PhaseContext& ctx, PhaseResult* result) {
  // 1. The workers: setup, barrier, the timed writes.
  const uint64_t start = now_ns();
  std::vector<Worker> workers(p_.workers);
  WorkerRun run;
  Status st = run_workers_once(ctx, &workers, &run);
  add_setup(result, start, run.t0_ns);  // the folder, each worker's files and buffers, the barrier
  // 2. This rank's figures, then its files removed.
  RankTally mine = fold_workers(&workers, st, *ctx.store);
  mine.status.update(clean_up(ctx));
  // 3. Rank 0 folds every rank's figures and writes the result.
  RankTotals totals(p_.series_interval_ns, mine.status);
  Status g =
      gather_fold_to_root(ctx.comm, mine, [&](size_t r, RankTally&& one) { totals.add(r, std::move(one)); });
  if (!g.ok()) return g;
  if (ctx.comm.rank() != 0) return mine.status;
  put_results(totals, result);
  return totals.worst;
}

// Each worker makes its files and buffers (untimed), all ranks meet, then each writes its files (timed).
Status IngestPhase::run_workers_once(PhaseContext& ctx, std::vector<Worker>* workers, WorkerRun* run) const {
  const int rank = ctx.comm.rank();
  Status dir_status = ctx.store->make_folder(ctx.phase_name);
  for (auto& w : *workers) w.tally = IoTally(p_.series_interval_ns);
  ctx.progress.total_bytes.store(p_.workers * p_.files_per_worker * p_.file_size);
  Status barrier = run_workers(
      ctx.comm, p_.workers,
      [&](unsigned w) {
        return dir_status.ok() ? setup(w, *ctx.store, ctx.phase_name, rank, &(*workers)[w]) : dir_status;
      },
      [&](unsigned w, uint64_t t0) {
        return body(&(*workers)[w], t0, worker_data_seed(p_.seed, static_cast<uint64_t>(rank), w), ctx);
      },
      run);
  return barrier.ok() ? run->first_error() : barrier;
}

// This rank's figures: its workers' tallies merged, their engines and files closed.
RankTally IngestPhase::fold_workers(std::vector<Worker>* workers, Status st, Store& store) const {
  IoTally mine(p_.series_interval_ns);
  uint64_t fsync_ns = 0;
  for (auto& w : *workers) {
    mine.merge(w.tally);
    fsync_ns = std::max(fsync_ns, w.fsync_ns);
    w.engine.reset();
    w.files.clear();
  }
  // After the engines went: each leaves its request figures with the store.
  json requests = take_request_stats_json(store);
  return RankTally{std::move(mine), fsync_ns, std::move(st), std::move(requests)};
}

// On a shared target the ranks share the folder: each rank removes its own files, and rank 0 the
// folder once every rank is done with it (a rank that removed the folder took the files of a rank
// still writing, and two removals raced). On node-local targets each node's files still go now.
// When stopping, the run folder's removal after the report takes the files: results go out first.
Status IngestPhase::clean_up(const PhaseContext& ctx) const {
  const int rank = ctx.comm.rank();
  const bool clean = !ctx.keep && !ctx.stop.load();
  Status st;
  if (clean) st.update(remove_own_files(*ctx.store, ctx.phase_name, rank));
  st.update(ctx.comm.barrier());
  if (clean && rank == 0) st.update(ctx.store->remove_tree(ctx.phase_name));
  return st;
}

void IngestPhase::put_results(const RankTotals& totals, PhaseResult* result) const {
  const IoTally& total = totals.total;
  auto& m = result->metrics;
  m["write_bytes"] = static_cast<double>(total.bytes);
  m["write_seconds"] = total.seconds();
  m["write_bytes_per_s"] = total.bytes_per_s();
  m["fsync_seconds"] = totals.fsync_max * 1e-9;
  m["ios"] = static_cast<double>(total.ios);
  put_latency_metrics(total.latency, "latency_", LatencyMetrics::kFull, &m);
  m["rank_bytes_per_s_min"] = totals.rank_min;
  m["rank_bytes_per_s_max"] = totals.rank_max;
  put_io_details(total, totals.per_rank, p_.engine, result);
  result->details["data_reducibility"] = reducibility_details(p_.reduce, p_.block_size);
  if (RequestStats req; merge_request_stats(totals.rank_requests, &req)) {
    put_request_metrics(req, total.seconds(), result);
  } else if (!p_.direct) {
    result->warnings.push_back(
        "buffered writes (direct: false): bandwidth includes page-cache absorption until fsync");
  }
}

}  // namespace

std::unique_ptr<Phase> parse_ingest(ParamReader& r) {
  IngestParams p;
  static_cast<IoParams&>(p) = read_io_params(r, {.queue_depth = 1});
  p.files_per_worker = static_cast<uint64_t>(r.integer("files_per_worker", 1, 1, 4096));
  p.file_size = r.size("file_size", 64ULL << 20, 1);
  if (!checked_product({p.file_size, p.files_per_worker, p.workers})) {
    r.fail("file_size", "file_size x files_per_worker x workers exceeds 2^64 bytes; make them smaller");
  }
  p.fsync = r.boolean("fsync", true);
  p.seed = static_cast<uint64_t>(r.integer("seed", 1, 0, INT64_MAX));
  p.reduce = read_reducibility(r);
  if (p.direct && p.file_size % kDirectAlignment != 0) {
    r.fail("file_size", "must be a multiple of 4KiB when direct is true (O_DIRECT alignment)");
  }
  return std::make_unique<IngestPhase>(std::move(p));
}

const std::vector<MetricInfo>& ingest_metrics() {
  static const std::vector<MetricInfo> kMetrics = [] {
    std::vector<MetricInfo> rows = {
        {.name = "write_bytes_per_s",
         .unit = Unit::kBytesPerSecond,
         .better = Better::kHigher,
         .description = "aggregate: bytes / (last end - first start)"},
        {.name = "write_bytes",
         .unit = Unit::kBytes,
         .better = Better::kNeither,
         .description = "bytes written by all ranks"},
        {.name = "write_seconds",
         .unit = Unit::kSeconds,
         .better = Better::kLower,
         .description = "first start to last end, fsync included"},
        {.name = "fsync_seconds",
         .unit = Unit::kSeconds,
         .better = Better::kLower,
         .description = "longest worker's final fsync"},
        {.name = "ios", .unit = Unit::kCount, .better = Better::kNeither, .description = "writes completed"},
        {.name = "latency_p50_s",
         .unit = Unit::kSeconds,
         .better = Better::kLower,
         .description = "per-write latency, median"},
        {.name = "latency_p90_s",
         .unit = Unit::kSeconds,
         .better = Better::kLower,
         .description = "per-write latency, 90th percentile"},
        {.name = "latency_p99_s",
         .unit = Unit::kSeconds,
         .better = Better::kLower,
         .description = "per-write latency, 99th percentile"},
        {.name = "latency_p999_s",
         .unit = Unit::kSeconds,
         .better = Better::kLower,
         .description = "per-write latency, 99.9th percentile"},
        {.name = "latency_max_s",
         .unit = Unit::kSeconds,
         .better = Better::kLower,
         .description = "per-write latency, max"},
        {.name = "rank_bytes_per_s_min",
         .unit = Unit::kBytesPerSecond,
         .better = Better::kHigher,
         .description = "slowest rank's bytes/s"},
        {.name = "rank_bytes_per_s_max",
         .unit = Unit::kBytesPerSecond,
         .better = Better::kHigher,
         .description = "fastest rank's bytes/s"},
    };
    // On an s3:// target: requests/s, time to first byte, latency, retries, errors.
    for (const MetricInfo& m : request_metric_infos()) rows.push_back(m);
    return rows;
  }();
  return kMetrics;
}

}  // namespace iofab
