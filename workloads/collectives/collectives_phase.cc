#include "workloads/collectives/collectives_phase.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "harness/comm/collectives.h"
#include "harness/comm/local_rank.h"
#include "harness/comm/rank_gather.h"
#include "harness/core/mem_available.h"
#include "harness/core/units.h"
#include "harness/engines/io_driver.h"
#include "harness/phase/metric_rows.h"
#include "harness/phase/params.h"
#include "workloads/collectives/agreement.h"
#include "workloads/collectives/coll_ops.h"
#include "workloads/collectives/ddp_schedule.h"
#include "workloads/collectives/fsdp_schedule.h"
#include "workloads/collectives/results.h"
#include "workloads/collectives/step_runner.h"
#include "workloads/collectives/step_stats.h"
#include "workloads/collectives/sweep.h"

namespace iofab {
namespace {

using nlohmann::json;

struct CollectivesParams {
  std::string mode;     // sweep | ddp | fsdp | compare | all
  std::string backend;  // auto | mpi | nccl
  SweepSpec sweep;
  ModelSpec model;
  DdpOptions ddp;
  FsdpOptions fsdp;
  int steps = 5;
  int warmup_steps = 1;

  bool runs_sweep() const { return mode == "sweep" || mode == "all"; }
  bool runs_ddp() const { return mode == "ddp" || mode == "compare" || mode == "all"; }
  bool runs_fsdp() const { return mode == "fsdp" || mode == "compare" || mode == "all"; }
};

// What a rank sends rank 0 at the end of the phase: what it measured, and how it ended.
struct RankResults {
  std::vector<SizeSample> sweep;
  std::vector<StepTiming> ddp;
  std::vector<StepTiming> fsdp;
  Status status;
  static constexpr auto wire_fields() {
    using R = RankResults;
    return std::tuple{wire_field("sweep", &R::sweep), wire_field("ddp", &R::ddp), wire_field("fsdp", &R::fsdp),
                      wire_field("status", &R::status)};
  }
};

class CollectivesPhase final : public Phase {
 public:
  explicit CollectivesPhase(CollectivesParams p) : p_(std::move(p)) {}

  // Nothing goes to the target: the data lives in host or GPU memory.
  std::optional<uint64_t> planned_bytes(int) const override { return 0; }
  Status run(PhaseContext& ctx, PhaseResult* result) override;

 private:
  Status pick_backend(Comm& comm, BackendChoice* choice, int* device, LocalRank* local) const;
  std::string skip_reason(const BackendChoice& choice, int ranks) const;
  Status check_host_memory(const Collectives& coll, const LocalRank& local, int ranks) const;
  Status measure(Collectives& coll, PhaseContext& ctx, const StepSchedule& ddp, const StepSchedule& fsdp,
                 RankResults* mine) const;
  Status report(const BackendChoice& choice, const std::string& described, const StepSchedule& ddp,
                const StepSchedule& fsdp, int ranks, std::vector<RankResults> all, PhaseResult* result) const;

  CollectivesParams p_;
};

Status CollectivesPhase::pick_backend(Comm& comm, BackendChoice* choice, int* device,
                                      LocalRank* local) const {
  Status s = find_local_rank(comm, local);
  if (!s.ok()) return s;
  // Only look for GPUs when a backend that needs one may be used: `backend: mpi` never touches the CUDA
  // runtime.
  const CollectiveBackend* asked = find_collective_backend(p_.backend);
  const std::string gpu =
      asked != nullptr && !asked->needs_own_gpu ? "" : gpu_for_rank(local->rank, local->size, device);
  // Every rank sees every rank's GPU and makes the same choice from them.
  std::vector<std::string> all;
  s = all_gather(comm, gpu, &all);
  if (!s.ok()) return s;
  *choice = choose_backend(p_.backend, nccl_built(), all);
  return Status::Ok();
}

Status CollectivesPhase::check_host_memory(const Collectives& coll, const LocalRank& local, int ranks) const {
  if (coll.memory() != MemoryKind::kHost) return Status::Ok();  // cudaMalloc fails cleanly on its own
  uint64_t need = 0, send = 0, recv = 0;
  if (p_.runs_sweep()) {
    sweep_buffer_bytes(p_.sweep, ranks, &send, &recv);
    need = std::max(need, send + recv);
  }
  if (p_.runs_ddp()) {
    schedule_buffer_bytes(ddp_step(p_.model, p_.ddp), ranks, &send, &recv);
    need = std::max(need, send + recv);
  }
  if (p_.runs_fsdp()) {
    schedule_buffer_bytes(fsdp_step(p_.model, p_.fsdp, ranks), ranks, &send, &recv);
    need = std::max(need, send + recv);
  }
  const uint64_t avail = mem_available_bytes();
  const uint64_t host_need = need * static_cast<uint64_t>(local.size);
  if (avail == 0 || host_need <= avail) return Status::Ok();
  return Status::Invalid("needs " + units::format_bytes(static_cast<double>(need)) +
                         " of host memory per rank x " + std::to_string(local.size) +
                         " ranks on this host, but only " + units::format_bytes(static_cast<double>(avail)) +
                         " is available; lower max_bytes, or params per layer (more layers)");
}

// Why this run cannot say anything, or "": one rank runs on NCCL, as nccl-tests does on one GPU (the data
// check still holds, and busbw is 0 wherever the bus factor is (n-1)-based: details.sweep.bus_factor says
// so per op); host memory over MPI needs two ranks.
std::string CollectivesPhase::skip_reason(const BackendChoice& choice, int ranks) const {
  if (!choice.skip.empty()) return choice.skip;
  const CollectiveBackend* b = find_collective_backend(choice.backend);
  if (b == nullptr) return "no collectives backend \"" + choice.backend + "\"";
  if (ranks < 2 && !b->one_rank) return "needs >= 2 ranks";
  if (p_.runs_sweep() && !b->float8 && dtype_is_float8(p_.sweep.dtype)) {
    std::string takers;
    for (const CollectiveBackend& t : collective_backends()) {
      if (t.float8) takers += (takers.empty() ? "" : " or ") + std::string(t.name);
    }
    return std::string(dtype_name(p_.sweep.dtype)) + " needs the " + takers +
           " backend: " + std::string(b->shown) + " has no 8-bit float type (" + choice.reason + ")";
  }
  return "";
}

// The timed part on every rank: the sweep, then the DDP and FSDP steps that the mode asks for.
Status CollectivesPhase::measure(Collectives& coll, PhaseContext& ctx, const StepSchedule& ddp,
                                 const StepSchedule& fsdp, RankResults* mine) const {
  Comm& comm = ctx.comm;
  const int ranks = comm.size();
  Status st;
  if (p_.runs_sweep()) st = run_sweep(coll, comm, p_.sweep, ctx.stop, &ctx.progress, &mine->sweep);
  for (const auto& [schedule, wanted, timings] :
       {std::tuple{&ddp, p_.runs_ddp(), &mine->ddp}, std::tuple{&fsdp, p_.runs_fsdp(), &mine->fsdp}}) {
    if (!wanted || !st.ok()) continue;
    const double per_step = schedule_bytes_per_rank(*schedule, ranks);
    ctx.progress.total_bytes.fetch_add(static_cast<uint64_t>(per_step) * static_cast<uint64_t>(p_.steps));
    st = run_steps(coll, comm, *schedule, p_.warmup_steps, p_.steps, ctx.stop, timings);
    ctx.progress.done_bytes.fetch_add(static_cast<uint64_t>(per_step) * timings->size());
  }
  return st;
}

// A rank's failure reaches the others as "rank N failed": the first error a rank saw itself, before an
// interruption, before those echoes.
Status first_own_error(const std::vector<RankResults>& all) {
  Status worst;
  int worst_class = 3;  // 0 own error, 1 interrupted, 2 echo, 3 none
  for (size_t r = 0; r < all.size(); ++r) {
    if (all[r].status.ok()) continue;
    const std::string err = all[r].status.message();
    const bool echo = err.starts_with("rank ") && err.ends_with(" failed");
    const int cls = all[r].status.code() == Status::Code::kInterrupted ? 1 : echo ? 2 : 0;
    if (cls < worst_class) {
      worst_class = cls;
      worst = cls == 1 ? Status::Interrupted(err) : Status::IoError("rank " + std::to_string(r) + ": " + err);
    }
  }
  return worst;
}

// Rank 0: every rank's figures into the result, with the backend, the model and DDP's buckets; Internal
// when the ranks' sweeps disagree.
Status CollectivesPhase::report(const BackendChoice& choice, const std::string& described,
                                const StepSchedule& ddp, const StepSchedule& fsdp, int ranks,
                                std::vector<RankResults> all, PhaseResult* result) const {
  std::vector<std::vector<SizeSample>> sweep_ranks;
  std::vector<std::vector<StepTiming>> ddp_ranks, fsdp_ranks;
  for (RankResults& r : all) {
    sweep_ranks.push_back(std::move(r.sweep));
    ddp_ranks.push_back(std::move(r.ddp));
    fsdp_ranks.push_back(std::move(r.fsdp));
  }
  result->details["backend"] = {{"name", choice.backend}, {"reason", choice.reason}, {"device", described}};
  result->details["ranks"] = ranks;
  if (p_.runs_sweep() && !add_sweep_results(sweep_ranks, p_.sweep, result)) {
    return Status::Internal("the ranks' sweep samples disagree");
  }
  const json model = {{"params", p_.model.params},
                      {"layers", p_.model.layers},
                      {"param_dtype", dtype_name(p_.model.param_dtype)},
                      {"grad_dtype", dtype_name(p_.model.grad_dtype)}};
  if (p_.runs_ddp() && !ddp_ranks.empty() && !ddp_ranks[0].empty()) {
    std::vector<DdpBucket> buckets;
    ddp_step(p_.model, p_.ddp, &buckets);
    json sizes = json::array();
    for (const auto& b : buckets) sizes.push_back(b.elements * dtype_size(p_.model.grad_dtype));
    result->details["ddp"] = {{"model", model}, {"buckets", buckets.size()}, {"bucket_bytes", sizes}};
    add_step_results("ddp", ddp, ddp_bytes_per_rank_analytic(p_.model, ranks), ranks, ddp_ranks, result);
  }
  if (p_.runs_fsdp() && !fsdp_ranks.empty() && !fsdp_ranks[0].empty()) {
    result->details["fsdp"] = {{"model", model}, {"prefetch", p_.fsdp.prefetch}};
    add_step_results("fsdp", fsdp, fsdp_bytes_per_rank_analytic(p_.model, ranks), ranks, fsdp_ranks, result);
  }
  add_ratios(result);
  return Status::Ok();
}

Status CollectivesPhase::run(PhaseContext& ctx, PhaseResult* result) {
  const uint64_t start = now_ns();
  Comm& comm = ctx.comm;
  const int ranks = comm.size();
  BackendChoice choice;
  int device = -1;
  LocalRank local;
  Status st = pick_backend(comm, &choice, &device, &local);
  if (!st.ok()) return st;
  if (std::string skip = skip_reason(choice, ranks); !skip.empty()) {
    result->skip_reason = std::move(skip);
    return Status::Ok();
  }
  if (p_.runs_sweep() && p_.sweep.root >= ranks) {
    return Status::Invalid("root " + std::to_string(p_.sweep.root) + " is not a rank: there are " +
                           std::to_string(ranks) + " ranks");
  }

  std::unique_ptr<Collectives> coll;
  st = make_collectives(choice.backend, comm, device, &coll);
  if (st.ok()) st = check_host_memory(*coll, local, ranks);
  st = agree_to_continue(comm, st, ctx.stop);
  add_setup(result, start, now_ns());  // the backend chosen, its communicator made, every rank agreed
  if (!st.ok()) return st;

  RankResults mine;
  const StepSchedule ddp = ddp_step(p_.model, p_.ddp);
  const StepSchedule fsdp = fsdp_step(p_.model, p_.fsdp, ranks);
  st = measure(*coll, ctx, ddp, fsdp, &mine);
  mine.status = st;
  const std::string described = coll->describe();
  coll.reset();

  std::vector<RankResults> all;
  Status g = gather_to_root(comm, mine, &all);
  if (!g.ok()) return g;
  if (comm.rank() != 0) return st;
  const Status worst = first_own_error(all);
  if (Status r = report(choice, described, ddp, fsdp, ranks, std::move(all), result); !r.ok()) return r;
  return worst;
}

// A sweep takes every type; a model's parameters and gradients are float32, float16 or bfloat16.
DType read_dtype(ParamReader& r, std::string_view key, const char* def, bool any_type) {
  const std::string name = any_type ? r.choice(key, def,
                                               {"float32", "float16", "bfloat16", "int32", "float64", "int64",
                                                "float8_e4m3", "float8_e5m2"})
                                    : r.choice(key, def, {"float32", "float16", "bfloat16"});
  return parse_dtype(name).value_or(DType::kFloat32);
}

std::vector<CollOp> read_ops(ParamReader& r) {
  std::vector<CollOp> defaults;
  std::string names;
  for (const auto& info : coll_op_table()) {
    if (info.by_default) defaults.push_back(&info);
    names += (names.empty() ? "" : ", ") + std::string(info.name);
  }
  const json* v = r.raw("ops");
  if (v == nullptr) return defaults;
  const std::vector<std::string> words = name_list(*v);
  std::vector<CollOp> ops;
  for (const auto& w : words) {
    auto op = parse_coll_op(w);
    if (!op) {
      r.fail("ops", "unknown op " + describe_json_value(w) + "; expected a list of: " + names);
      return defaults;
    }
    ops.push_back(*op);
  }
  if (ops.empty()) r.fail("ops", "expected a non-empty list of: " + names);
  return ops.empty() ? defaults : ops;
}

}  // namespace

std::unique_ptr<Phase> parse_collectives(ParamReader& r) {
  CollectivesParams p;
  p.mode = r.choice("mode", "compare", {"sweep", "ddp", "fsdp", "compare", "all"});
  p.backend = r.choice(
      "backend", "auto",
      [](std::string_view n) { return n == "auto" || find_collective_backend(n) != nullptr; },
      [] {
        std::vector<std::string> names = {"auto"};
        for (const CollectiveBackend& b : collective_backends()) names.emplace_back(b.name);
        return names;
      });

  SweepSpec& s = p.sweep;
  s.ops = read_ops(r);
  s.min_bytes = r.size("min_bytes", 1024, 1);
  s.max_bytes = r.size("max_bytes", 64ULL << 20, 1);
  s.factor = r.count("factor", 2, 1, 1024);
  s.iters = static_cast<int>(r.integer("iters", 20, 1, 100000));
  s.warmup = static_cast<int>(r.integer("warmup", 5, 0, 100000));
  s.dtype = read_dtype(r, "dtype", "float32", true);
  s.redop = parse_redop(r.choice("redop", "sum", {"sum", "prod", "min", "max", "avg"})).value_or(RedOp::kSum);
  s.check = r.boolean("check", true);
  s.root = static_cast<int>(r.integer("root", 0, 0, 1 << 24));
  s.across = parse_time_across_ranks(r.choice("time_across_ranks", "avg", {"avg", "max", "min", "rank0"}))
                 .value_or(TimeAcrossRanks::kAvg);
  const std::string placement = r.choice("placement", "both", {"both", "out_of_place", "in_place"});
  s.out_of_place = placement != "in_place";
  s.in_place = placement != "out_of_place";
  check_sweep_bounds(r, s.min_bytes, s.max_bytes, s.factor);

  ModelSpec& m = p.model;
  const double params = r.count("params", 125e6, 1, 1e15);
  m.params = static_cast<uint64_t>(std::llround(params));
  m.layers = static_cast<int>(r.integer("layers", 12, 1, 100000));
  m.param_dtype = read_dtype(r, "param_dtype", "bfloat16", false);
  m.grad_dtype = read_dtype(r, "grad_dtype", "bfloat16", false);
  if (m.params < static_cast<uint64_t>(m.layers)) {
    r.fail("params", "must be >= layers (" + std::to_string(m.layers) + "): every layer has parameters");
  }
  p.ddp.bucket_cap = r.size("bucket_cap", 25ULL << 20, 1);
  p.ddp.first_bucket_cap = r.size("first_bucket_cap", 1ULL << 20, 1);
  if (p.ddp.bucket_cap < dtype_size(m.grad_dtype))
    r.fail("bucket_cap", "must hold at least one gradient element");
  p.ddp.backward_s = r.duration("compute_per_layer", 0, 0, 3600);
  // Backward takes about twice forward's time (two matmuls per forward one), so forward defaults to half.
  p.ddp.forward_s = r.duration("forward_compute_per_layer", p.ddp.backward_s / 2, 0, 3600);
  p.fsdp.forward_s = p.ddp.forward_s;
  p.fsdp.backward_s = p.ddp.backward_s;
  p.fsdp.prefetch = r.boolean("prefetch", true);
  p.steps = static_cast<int>(r.integer("steps", 5, 1, 1000000));
  p.warmup_steps = static_cast<int>(r.integer("warmup_steps", 1, 0, 1000000));
  return std::make_unique<CollectivesPhase>(std::move(p));
}

namespace {

// collectives_metrics's rows in 2 parts, in the report's order (harness/phase/metric_rows.h).
std::vector<MetricInfo> collectives_metric_rows_1() {
  return {
      {.name = "busbw.*",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kHigher,
       .description =
           "busbw.<op>.<size>: bus bandwidth at one sweep size (busbw.<op>.in_place.<size> in place); "
           "busbw.<op>.avg: the mean over the sweep's sizes and placements (nccl-tests' Avg bus "
           "bandwidth)"},
      {.name = "algbw.*",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kHigher,
       .description = "algbw.<op>.<size> and algbw.<op>.max: S / time, S as nccl-tests counts it"},
      {.name = "wrong_elements",
       .unit = Unit::kCount,
       .better = Better::kLower,
       .description = "result elements that differ from the expected, all ranks"},
      {.name = "rank_skew_max",
       .unit = Unit::kFraction,
       .better = Better::kLower,
       .description = "worst (slowest - fastest rank's mean) / slowest"},
      {.name = "exposed_comm_fraction.ddp",
       .unit = Unit::kFraction,
       .better = Better::kLower,
       .description = "DDP: (step - compute) / step"},
      {.name = "exposed_comm_fraction.fsdp",
       .unit = Unit::kFraction,
       .better = Better::kLower,
       .description = "FSDP: (step - compute) / step"},
      {.name = "ddp.bytes_per_rank",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "bytes each rank sends per DDP step, as issued"},
      {.name = "fsdp.bytes_per_rank",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "bytes each rank sends per FSDP step, as issued"},
      {.name = "ddp.bytes_per_rank_analytic",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "2(n-1)/n * params * grad bytes"},
      {.name = "fsdp.bytes_per_rank_analytic",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "(n-1)/n * params * (2 * param bytes + grad bytes)"},
      {.name = "ddp.comm_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "DDP: time the comm lane was busy per step"},
      {.name = "fsdp.comm_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "FSDP: time the comm lane was busy per step"},
      {.name = "ddp.compute_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kNeither,
       .description = "DDP: emulated compute per step"},
      {.name = "fsdp.compute_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kNeither,
       .description = "FSDP: emulated compute per step"},
  };
}

std::vector<MetricInfo> collectives_metric_rows_2() {
  return {
      {.name = "ddp.exposed_comm_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "DDP: step - compute"},
      {.name = "fsdp.exposed_comm_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "FSDP: step - compute"},
      {.name = "ddp.collectives",
       .unit = Unit::kCount,
       .better = Better::kNeither,
       .description = "all-reduces per DDP step (buckets)"},
      {.name = "fsdp.collectives",
       .unit = Unit::kCount,
       .better = Better::kNeither,
       .description = "all-gathers and reduce-scatters per FSDP step"},
      {.name = "fsdp_ddp_step_ratio",
       .unit = Unit::kRatio,
       .better = Better::kNeither,
       .description = "FSDP step time / DDP step time"},
      {.name = "fsdp_ddp_comm_ratio",
       .unit = Unit::kRatio,
       .better = Better::kNeither,
       .description = "FSDP comm time / DDP comm time"},
  };
}

}  // namespace

const std::vector<MetricInfo>& collectives_metrics() {
  static const std::vector<MetricInfo> kMetrics = [] {
    const auto busbw_max = [](CollOp op) {
      const std::string name(coll_op_name(op));
      return MetricInfo{
          .name = "busbw." + name + ".max",
          .unit = Unit::kBytesPerSecond,
          .better = Better::kHigher,
          .description = "best bus bandwidth of " + name + " over the sweep's sizes (nccl-tests' busbw)"};
    };
    // The first four plain names are the console's headline.
    std::vector<MetricInfo> v = {
        busbw_max(coll_op("all_reduce")),
        {.name = "ddp.step_seconds",
         .unit = Unit::kSeconds,
         .better = Better::kLower,
         .description = "DDP step, slowest rank, mean over steps"},
        {.name = "fsdp.step_seconds",
         .unit = Unit::kSeconds,
         .better = Better::kLower,
         .description = "FSDP step, slowest rank, mean over steps"},
        {.name = "fsdp_ddp_bytes_ratio",
         .unit = Unit::kRatio,
         .better = Better::kNeither,
         .description = "FSDP's bytes per rank / DDP's (1.5 with one dtype)"},
    };
    for (const auto& info : coll_op_table()) {
      if (info.name != "all_reduce") v.push_back(busbw_max(&info));
    }
    const std::vector<MetricInfo> rest =
        joined_rows({collectives_metric_rows_1(), collectives_metric_rows_2()});
    v.insert(v.end(), rest.begin(), rest.end());
    return v;
  }();
  return kMetrics;
}

}  // namespace iofab
