// Rank 0's side of a run at 1,024 to 16,384 ranks, on one machine: each phase's real gather-and-merge
// (gather_to_root, then the phase's own merge into a PhaseResult) over synthetic per-rank results
// (latency histograms, bandwidth series, per-rank details), the report header's hosts, and the JSON
// report. For each rank count it prints, per phase and in all: the merge's seconds, the JSON's bytes,
// and rank 0's peak heap during the merge (a counting operator new), the received texts included.
//
//   build/default/benches/rank_merge_bench [ranks ...]      (default: 1024 4096 16384)
//   rank_merge_bench --report-out r.json 4096               (also writes that report, for the HTML test)
//
// Goals (docs/scale.md): under 1 s at 1,024 ranks; the report growing no faster than the ranks, and
// under 64 MiB at 16,384. A plain program, not Google Benchmark: one run of each size is the figure
// (a merge at 16,384 ranks takes seconds), and the peak heap needs its own allocator.
//
// The other ranks' answers are made from rank 0's own (ReplayComm): the same wire form with a
// different tally (a histogram over ~300 buckets, a 600-interval series: a one-minute phase at the
// default 100 ms) and host, so the merge decodes and folds what a real run sends.
#include "benches/rank_merge_bench.h"

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <new>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "harness/comm/comm.h"
#include "harness/comm/rank_gather.h"
#include "harness/core/json_text.h"
#include "harness/fs/target.h"
#include "harness/phase/params.h"
#include "harness/phase/phase.h"
#include "harness/results/report.h"
#include "driver/runner/cluster_hosts.h"
#include "harness/stats/io_tally.h"
#include "harness/store/memory_store.h"
#include "reports/json_report.h"
#include "workloads/checkpoint/results.h"
#include "workloads/checkpoint/shard_layout.h"
#include "workloads/collectives/bus_bandwidth.h"
#include "workloads/collectives/results.h"
#include "workloads/collectives/sweep.h"
#include "workloads/phase_table.h"
#include "workloads/restore/results.h"

// ---- The counting allocator: live and peak bytes of the heap, as malloc_usable_size counts them. ----
namespace {
std::atomic<int64_t> g_live{0};
std::atomic<int64_t> g_peak{0};

void note_alloc(void* p) {
  if (p == nullptr) throw std::bad_alloc();
  const int64_t now = g_live.fetch_add(static_cast<int64_t>(malloc_usable_size(p))) +
                      static_cast<int64_t>(malloc_usable_size(p));
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}
void note_free(void* p) {
  if (p != nullptr) g_live.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)));
  std::free(p);
}
void* counted(size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  note_alloc(p);
  return p;
}
void* counted_aligned(size_t n, std::align_val_t a) {
  const size_t align = static_cast<size_t>(a);
  void* p = std::aligned_alloc(align, (n + align - 1) / align * align);
  note_alloc(p);
  return p;
}
}  // namespace

void* operator new(size_t n) { return counted(n); }
void* operator new[](size_t n) { return counted(n); }
void* operator new(size_t n, std::align_val_t a) { return counted_aligned(n, a); }
void* operator new[](size_t n, std::align_val_t a) { return counted_aligned(n, a); }
void operator delete(void* p) noexcept { note_free(p); }
void operator delete[](void* p) noexcept { note_free(p); }
void operator delete(void* p, size_t) noexcept { note_free(p); }
void operator delete[](void* p, size_t) noexcept { note_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { note_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { note_free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { note_free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { note_free(p); }

namespace iofab {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string host_name(int rank) { return "node" + std::to_string(rank / kRanksPerHost); }

// A rank's tally: ~300 latency buckets around 2 ms (lognormal), a 600-interval series, its own bytes.
IoTally synthetic_tally(int rank) {
  static const std::vector<uint64_t> latencies = [] {
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> d(std::log(2e6), 1.0);
    std::vector<uint64_t> v(2000);
    for (auto& x : v) x = static_cast<uint64_t>(d(rng));
    return v;
  }();
  IoTally t(kSeriesInterval);
  const uint64_t shift = static_cast<uint64_t>(rank % 13);
  for (uint64_t v : latencies) t.latency.record_n(v + v * shift / 100, 8);
  for (size_t i = 0; i < kSeriesIntervals; ++i) {
    t.series.add(i * kSeriesInterval, (100ULL << 20) + static_cast<uint64_t>(rank) * 4096 + i * 512);
  }
  t.bytes = 60ULL * (1ULL << 30) + static_cast<uint64_t>(rank) * 4096;
  t.ios = t.bytes >> 20;
  t.span(1000 + static_cast<uint64_t>(rank % 97), kSeriesIntervals * kSeriesInterval);
  return t;
}

// Runs merge (which gathers through comm) and measures it.
Measured measure(const std::string& phase, ReplayComm& comm, const std::function<PhaseResult()>& merge) {
  const int64_t before = g_live.load();
  g_peak.store(before);
  PhaseResult result = merge();
  const auto end = Clock::now();
  Measured m;
  m.phase = phase;
  m.seconds = std::chrono::duration<double>(end - comm.gathered_at()).count();
  m.cpu_seconds = thread_cpu_seconds() - comm.gathered_cpu();
  m.wire_bytes = comm.received_bytes() / comm.size();
  m.peak_bytes = static_cast<double>(g_peak.load() - before);
  m.report.name = phase;
  m.report.kind = phase;
  for (const auto& [k, v] : result.metrics) m.report.metrics[k] = v;
  m.report.details = std::move(result.details);
  m.report.warnings = std::move(result.warnings);
  return m;
}

namespace {

using nlohmann::json;

// Another rank's answer: rank 0's wire form with this rank's tally (and host, where it says one).
std::string with_rank_tally(int rank, const std::string& mine) {
  json j;
  wire_decode(mine, &j);
  if (j.contains("tally")) j["tally"] = synthetic_tally(rank).to_wire();
  if (j.contains("host")) j["host"] = host_name(rank);
  return wire_bytes(j);
}

// The context a phase's merge reads: this comm, a memory store, no stop.
struct Context {
  explicit Context(Comm& comm, const std::string& name) : ctx{comm, run_dir, target, stop, progress, name} {
    ctx.store = &store;
  }
  std::string run_dir = "/bench/iofab-run";
  TargetInfo target;
  std::atomic<bool> stop{false};
  Progress progress;
  MemoryStore store;
  PhaseContext ctx;
};

Measured ingest(int ranks) {
  ReplayComm comm(ranks, with_rank_tally);
  Context c(comm, "ingest");
  const json obj = {{"kind", "ingest"}, {"engine", "null"},    {"direct", false},
                    {"workers", 1},     {"file_size", "4KiB"}, {"files_per_worker", 1}};
  ParamReader r(obj, "phases[0]");
  std::unique_ptr<Phase> phase = find_phase_kind("ingest")->parse(r);
  return measure("ingest", comm, [&] {
    PhaseResult result;
    if (Status s = phase->run(c.ctx, &result); !s.ok())
      std::fprintf(stderr, "ingest: %s\n", s.message().c_str());
    return result;
  });
}

Measured checkpoint(int ranks) {
  ReplayComm comm(ranks, with_rank_tally);
  Context c(comm, "checkpoint");
  CheckpointParams p;
  p.full_bytes = 14e12;
  p.count = 3;
  const ShardLayout l = shard_layout(p.full_bytes, 1, ranks, 1, 1);
  CheckpointRun mine;
  mine.tally = synthetic_tally(0);
  for (unsigned i = 0; i < p.count; ++i) {
    LocalCheckpoint cp;
    cp.stall_ns = 20'000'000'000ULL;
    cp.write_start_ns = 1000;
    cp.write_end_ns = cp.stall_ns;
    cp.bytes = l.shard_bytes;
    mine.done.push_back(cp);
    mine.commits.push_back({i + 1, 1'000'000, 0, 0, false});
  }
  return measure("checkpoint", comm, [&] {
    PhaseResult result;
    report_checkpoints(c.ctx, p, l, mine, &result).ignore_error();  // figures only; a verdict is not asked
    return result;
  });
}

Measured restore(int ranks) {
  ReplayComm comm(ranks, with_rank_tally);
  Context c(comm, "restore");
  RestoreParams p;
  LocatedCheckpoint cp;
  cp.dir = "checkpoint/step-3";
  cp.manifest.step = 3;
  cp.manifest.phase = "checkpoint";
  cp.manifest.shards.resize(static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    cp.manifest.shards[static_cast<size_t>(r)].name = "shard-" + std::to_string(r);
    cp.manifest.shards[static_cast<size_t>(r)].bytes = 1ULL << 30;
  }
  std::vector<Reader> readers(1);
  readers[0].tally = synthetic_tally(0);
  const std::vector<RestorePass> passes = {{3, 60.0, static_cast<uint64_t>(ranks) << 30}};
  return measure("restore", comm, [&] {
    PhaseResult result;
    report_restore(c.ctx, p, cp, static_cast<uint64_t>(ranks), readers, nullptr, passes, std::nullopt,
                   Status::Ok(),
                   &result)
        .ignore_error();  // figures only, as for the checkpoint
    return result;
  });
}

// nccl-tests' usual sweep shape: every op, 1 KiB to 64 MiB by 2 (17 sizes), 20 iterations.
Measured collectives(int ranks) {
  ReplayComm comm(ranks, [](int, const std::string& mine) { return mine; });
  SweepSpec spec;
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all"}) {
    spec.ops.push_back(coll_op(op));
  }
  std::vector<SizeSample> mine;
  for (CollOp op : spec.ops) {
    for (uint64_t size : sweep_sizes(spec.min_bytes, spec.max_bytes, spec.factor)) {
      SizeSample s;
      s.op = op;
      s.size = s.bytes = size;
      s.count = size / 4;
      for (int i = 0; i < spec.iters; ++i) s.iter_seconds.push_back(1e-5 + static_cast<double>(size) * 1e-10);
      s.total_seconds = s.iter_seconds[0] * spec.iters;
      s.checked = true;
      mine.push_back(s);
    }
  }
  return measure("collectives", comm, [&] {
    PhaseResult result;
    std::vector<std::vector<SizeSample>> all;
    if (Status g = gather_to_root(comm, mine, &all); !g.ok())
      std::fprintf(stderr, "collectives: %s\n", g.message().c_str());
    if (!add_sweep_results(all, spec, &result)) std::fprintf(stderr, "collectives: samples disagree\n");
    return result;
  });
}

// The report's header: every rank's host description (kRanksPerHost ranks a host).
Measured header(int ranks, Report* report) {
  json host = {{"hostname", host_name(0)}, {"cpus", 128},           {"memory_bytes", 2ULL << 40},
               {"kernel", "6.8.0"},        {"gpus", json::array()}, {"rdma_devices", json::array()}};
  for (int g = 0; g < 8; ++g) {
    host["gpus"].push_back(
        {{"index", g}, {"name", "NVIDIA H100 80GB HBM3"}, {"memory_bytes", 85899345920ULL}});
  }
  ReplayComm comm(ranks, [&](int rank, const std::string&) {
    json h = host;
    h["hostname"] = host_name(rank);
    return json_text(h);
  });
  const int64_t before = g_live.load();
  g_peak.store(before);
  std::vector<std::string> texts;
  comm.gather(json_text(host), &texts, 0).ignore_error();
  const ClusterHosts cluster = cluster_hosts(texts);
  Measured m;
  m.phase = "header";
  m.seconds = std::chrono::duration<double>(Clock::now() - comm.gathered_at()).count();
  m.cpu_seconds = thread_cpu_seconds() - comm.gathered_cpu();
  m.wire_bytes = comm.received_bytes() / comm.size();
  m.peak_bytes = static_cast<double>(g_peak.load() - before);
  report->cluster = {
      {"ranks", ranks}, {"comm", "mpi"}, {"hosts", cluster.hosts}, {"rank_hosts", cluster.rank_hosts}};
  return m;
}

Report one_phase(const PhaseReport& pr) {
  Report r;
  r.phases.push_back(pr);
  return r;
}

double mib(double bytes) { return bytes / (1 << 20); }

int run(int argc, char** argv) {
  std::vector<int> sizes;
  std::string report_out;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--report-out" && i + 1 < argc) {
      report_out = argv[++i];
    } else if (const int n = std::atoi(a.c_str()); n >= 2) {
      sizes.push_back(n);
    } else {
      std::fprintf(stderr, "usage: rank_merge_bench [--report-out FILE] [ranks ...] (ranks >= 2)\n");
      return 2;
    }
  }
  if (sizes.empty()) sizes = {1024, 4096, 16384};
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each row as it is measured: 16,384 ranks take a while
  std::printf("%-7s %-12s %9s %9s %10s %14s %13s\n", "ranks", "phase", "merge_s", "cpu_s", "json_MiB",
              "peak_heap_MiB", "rank_sent_KiB");
  for (int ranks : sizes) {
    Report report;
    std::vector<Measured> all;
    all.push_back(header(ranks, &report));
    for (Measured (*f)(int) : {ingest, checkpoint, restore, train_read, collectives}) all.push_back(f(ranks));
    double seconds = 0, cpu = 0, peak = 0;
    for (Measured& m : all) {
      const double bytes =
          m.phase == "header"
              ? static_cast<double>(report.cluster.dump().size())
              : static_cast<double>(report_to_json(one_phase(m.report)).at("phases").dump().size());
      std::printf("%-7d %-12s %9.3f %9.3f %10.2f %14.1f %13.1f\n", ranks, m.phase.c_str(), m.seconds,
                  m.cpu_seconds, mib(bytes), mib(m.peak_bytes), m.wire_bytes / 1024);
      seconds += m.seconds;
      cpu += m.cpu_seconds;
      peak = std::max(peak, m.peak_bytes);
      if (m.phase != "header") report.phases.push_back(std::move(m.report));
    }
    const auto t0 = Clock::now();
    const double cpu0 = thread_cpu_seconds();
    const std::string text = render_json_report(report);
    const double render_s = std::chrono::duration<double>(Clock::now() - t0).count();
    const double render_cpu = thread_cpu_seconds() - cpu0;
    std::printf("%-7d %-12s %9.3f %9.3f %10.2f %14.1f\n", ranks, "report", seconds + render_s,
                cpu + render_cpu, mib(static_cast<double>(text.size())), mib(peak));
    if (!report_out.empty() && ranks == sizes.back()) {
      FILE* f = std::fopen(report_out.c_str(), "w");
      if (f == nullptr || std::fwrite(text.data(), 1, text.size(), f) != text.size()) {
        std::fprintf(stderr, "cannot write %s\n", report_out.c_str());
        return 1;
      }
      std::fclose(f);
    }
  }
  return 0;
}

}  // namespace
}  // namespace iofab

int main(int argc, char** argv) { return iofab::run(argc, argv); }
