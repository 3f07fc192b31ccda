#include "workloads/checkpoint/results.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>

#include "harness/comm/rank_gather.h"
#include "harness/core/units.h"
#include "harness/phase/io_details.h"
#include "harness/phase/reducibility_params.h"
#include "harness/phase/request_metrics.h"
#include "workloads/checkpoint/budget.h"
#include "workloads/checkpoint/mlperf_figures.h"
#include "workloads/checkpoint/tensor_content.h"
#include "workloads/checkpoint/torch_details.h"

namespace iofab {

using nlohmann::json;

// A committed checkpoint on the wire; in iofab's namespace, LocalCheckpoint's, where a vector of them finds
// it. write_start_ns travels as 0 with "wrote": false for a checkpoint this rank wrote nothing of.
json to_wire(const LocalCheckpoint& c) {
  return {{"stall_ns", c.stall_ns},
          {"write_start_ns", c.write_start_ns == UINT64_MAX ? 0 : c.write_start_ns},
          {"write_end_ns", c.write_end_ns},
          {"drain_ns", c.drain_ns},
          {"durable_ns", c.durable_ns},
          {"unsynced_end_ns", c.unsynced_end_ns},
          {"bytes", c.bytes},
          {"wrote", c.write_start_ns != UINT64_MAX}};
}

Status from_wire(const json& j, LocalCheckpoint* out) {
  bool wrote = false;
  WireReader r(j);
  r.field("stall_ns", &out->stall_ns)
      .field("write_start_ns", &out->write_start_ns)
      .field("write_end_ns", &out->write_end_ns)
      .field("drain_ns", &out->drain_ns)
      .field("durable_ns", &out->durable_ns)
      .field("unsynced_end_ns", &out->unsynced_end_ns)
      .field("bytes", &out->bytes)
      .field("wrote", &wrote);
  if (!wrote) out->write_start_ns = UINT64_MAX;
  return r.status();
}

namespace {

double finite_or_zero(double v) { return std::isfinite(v) ? v : 0; }

constexpr const char* kAsyncOverrun = "): storage cannot keep up with asynchronous checkpoints at this gap";
constexpr const char* kTierOverrun =
    "): the target cannot absorb the drains from local_dir at this gap; each next checkpoint waited for the "
    "previous drain";

// What one rank sends rank 0: its writers' tally, its committed checkpoints, its outcome.
struct RankResult {
  IoTally tally;
  std::vector<LocalCheckpoint> checkpoints;
  Status status;
  json requests;  // an object store's request figures (null on files)
  static constexpr auto wire_fields() {
    using R = RankResult;
    return std::tuple{wire_field("tally", &R::tally), wire_field("checkpoints", &R::checkpoints),
                      wire_field("status", &R::status), wire_optional("requests", &R::requests)};
  }
};

// Every rank's results, as rank 0 merges them.
struct AllRanks {
  explicit AllRanks(uint64_t series_interval_ns) : total(series_interval_ns) {}
  IoTally total;
  json per_rank = json::array();
  std::vector<std::vector<LocalCheckpoint>> checkpoints;  // per rank, as it sent them
  std::vector<json> requests;                             // per rank (null on files)
};

// Rank r's results into all, as rank 0 reads them (one at a time: gather_fold_to_root); ranks: how
// many there are (a lone rank's error is not prefixed with its rank).
void merge_rank(size_t r, int ranks, RankResult&& rr, AllRanks* all, Status* worst) {
  all->total.merge(rr.tally);
  all->checkpoints.push_back(std::move(rr.checkpoints));
  all->per_rank.push_back({{"rank", r}, {"bytes", rr.tally.bytes}, {"error", rr.status.message()}});
  all->requests.push_back(std::move(rr.requests));
  if (!rr.status.ok()) {
    const std::string who = ranks > 1 ? "rank " + std::to_string(r) + ": " : "";
    keep_worst(worst, Status::FromCode(rr.status.code(), who + rr.status.message()));
  }
}

// The checkpoints as all ranks saw them, judged against the budget.
struct Judged {
  json per_cp = json::array();
  double stall_max = 0, stall_sum = 0, drain_max = 0, drain_sum = 0, commit_max = 0, delete_max = 0;
  double durable_max = 0;
  double write_bytes_sum = 0, write_seconds_sum = 0, bytes_per_cp = 0;
  // Per checkpoint, from the common start: the slowest rank's save (write + fsync), rank 0's own (DLIO
  // times rank 0 only, checkpoint.rank_sync false), and rank 0's without its fsyncs (DLIO's
  // checkpoint_fsync false). Sync: the writes; async: the drains.
  std::vector<double> slowest_s, rank0_s, rank0_unsynced_s;
  double worst_projected = 0;
  uint64_t committed = 0;
};

// Rank 0's own save of checkpoint i, as DLIO times it: with and without its fsyncs (0: it wrote none).
void add_rank0(const CheckpointParams& p, const AllRanks& all, size_t i, Judged* jd) {
  const bool have = !all.checkpoints.empty() && i < all.checkpoints[0].size();
  const LocalCheckpoint* c = have ? &all.checkpoints[0][i] : nullptr;
  const bool wrote = c != nullptr && c->write_start_ns != UINT64_MAX;
  jd->rank0_s.push_back(!wrote ? 0.0 : (p.async ? c->drain_ns : c->write_end_ns) * 1e-9);
  jd->rank0_unsynced_s.push_back(!wrote || p.async ? 0.0 : c->unsynced_end_ns * 1e-9);
}

// Per checkpoint: the slowest rank's stall, the span of all ranks' writes.
Judged judge_checkpoints(const CheckpointParams& p, const CheckpointRun& mine, const AllRanks& all,
                         double allowed) {
  const double full = p.full_bytes;
  Judged jd;
  for (size_t i = 0; i < mine.done.size() && i < mine.commits.size(); ++i) {
    double stall = 0, drain = 0, durable = 0, bytes = 0;
    uint64_t ws = UINT64_MAX, we = 0;
    for (const auto& rc : all.checkpoints) {
      if (i >= rc.size()) continue;
      const LocalCheckpoint& c = rc[i];
      stall = std::max(stall, c.stall_ns * 1e-9);
      drain = std::max(drain, c.drain_ns * 1e-9);
      durable = std::max(durable, c.durable_ns * 1e-9);
      bytes += static_cast<double>(c.bytes);
      if (c.write_start_ns != UINT64_MAX) {
        ws = std::min(ws, c.write_start_ns);
        we = std::max(we, c.write_end_ns);
      }
    }
    const CommitRecord& rec = mine.commits[i];
    // Sync: the burst's writes and fsyncs; async: the longest drain (writes and fsyncs in the background).
    const double write_s = p.async ? drain : (ws == UINT64_MAX || we < ws ? 0.0 : (we - ws) * 1e-9);
    const BudgetVerdict v = evaluate_budget(allowed, stall, bytes, full);
    ++jd.committed;
    jd.bytes_per_cp = bytes;
    jd.stall_max = std::max(jd.stall_max, stall);
    jd.stall_sum += stall;
    jd.drain_max = std::max(jd.drain_max, drain);
    jd.durable_max = std::max(jd.durable_max, durable);
    jd.drain_sum += drain;
    jd.commit_max = std::max(jd.commit_max, rec.commit_ns * 1e-9);
    jd.delete_max = std::max(jd.delete_max, rec.delete_ns * 1e-9);
    jd.write_bytes_sum += bytes;
    jd.write_seconds_sum += write_s;
    jd.slowest_s.push_back(p.async ? drain : (ws == UINT64_MAX ? 0.0 : we * 1e-9));
    add_rank0(p, all, i, &jd);
    jd.worst_projected = std::max(jd.worst_projected, v.projected_seconds);
    json cpj = {{"step", rec.step},
                {"bytes", bytes},
                {"stall_seconds", stall},
                {"durable_seconds", durable},
                {"write_seconds", write_s},
                {"write_bytes_per_s", write_s > 0 ? bytes / write_s : 0.0},
                {"commit_seconds", rec.commit_ns * 1e-9},
                {"delete_seconds", rec.delete_ns * 1e-9},
                {"deleted_checkpoints", rec.deleted},
                {"budget", to_json(v)}};
    if (p.async || p.two_tier) {
      cpj["drain_seconds"] = drain;
      cpj["drained_before_next"] = !rec.overran;
      if (rec.overran) cpj["budget"]["passed"] = false;
    }
    cpj["rank0_seconds"] = jd.rank0_s.back();
    if (!p.async && !p.two_tier) cpj["dlio_seconds"] = jd.rank0_unsynced_s.back();
    jd.per_cp.push_back(cpj);
  }
  return jd;
}

// MLPerf Storage's figures ("GB" meaning GiB): a checkpoint's duration is the slowest rank's (iofab's
// durable save), its throughput the checkpoint's GiB over the mean duration; beside them DLIO's own
// formula, the mean of the checkpoints' rates, on the same durations, rank 0's own durations, and the
// figure DLIO publishes: rank 0's saves without fsync, the mean of their rates (mlperf_figures.h).
void put_mlperf_save(const CheckpointParams& p, const Judged& jd, PhaseResult* result) {
  auto& m = result->metrics;
  const double bytes = jd.bytes_per_cp;
  m["mlperf_save_seconds"] = mean_seconds(jd.slowest_s);
  m["mlperf_save_gib_per_s"] = rate_of_mean_gib_per_s(bytes, jd.slowest_s);
  m["mlperf_save_rate_mean_gib_per_s"] = mean_of_rates_gib_per_s(bytes, jd.slowest_s);
  m["mlperf_save_seconds_rank0"] = mean_seconds(jd.rank0_s);
  if (p.async || p.two_tier) return;  // DLIO's save is synchronous, to one tier
  m["dlio_save_seconds"] = mean_seconds(jd.rank0_unsynced_s);
  m["dlio_save_gib_per_s"] = mean_of_rates_gib_per_s(bytes, jd.rank0_unsynced_s);
}

void fill_metrics(const CheckpointParams& p, const ShardLayout& l, const CheckpointRun& mine,
                  const AllRanks& all, const Judged& jd, double allowed, const BudgetVerdict& overall,
                  PhaseResult* result) {
  const double full = p.full_bytes;
  const IoTally& total = all.total;
  auto& m = result->metrics;
  m["checkpoints"] = static_cast<double>(jd.committed);
  m["checkpoint_bytes"] = static_cast<double>(l.checkpoint_bytes());
  m["full_checkpoint_bytes"] = full;
  m["shards"] = static_cast<double>(l.shards);
  if (!p.plan_rank_bytes.empty()) {
    m["rank_bytes_skew"] = rank_skew(p.plan_rank_bytes);
    // MLPerf's rule 4.3.4 (Rules.md): accelerator memory x accelerators >= the checkpoint, i.e. the
    // full checkpoint's GiB per planned rank at most one accelerator's memory (b200 180, mi355 288).
    const auto accelerators = static_cast<double>(p.plan_rank_bytes.size());
    m["mlperf_checkpoint_gib_per_accelerator"] = full / 0x1p30 / accelerators;
  }
  if (jd.committed > 0) put_mlperf_save(p, jd, result);
  m["write_bytes"] = static_cast<double>(total.bytes);
  m["write_bytes_per_s"] = jd.write_seconds_sum > 0 ? jd.write_bytes_sum / jd.write_seconds_sum : 0.0;
  m["stall_seconds_max"] = jd.stall_max;
  m["stall_seconds_mean"] = jd.committed > 0 ? jd.stall_sum / static_cast<double>(jd.committed) : 0.0;
  m["drain_seconds_max"] = jd.drain_max;
  // Sync saves only: async and tiered ones are durable when their drain ends (drain_seconds_max).
  if (!p.async && !p.two_tier) m["durable_seconds_max"] = jd.durable_max;
  m["commit_seconds_max"] = jd.commit_max;
  m["delete_seconds_max"] = jd.delete_max;
  m["allowed_stall_seconds"] = allowed;
  m["required_bytes_per_s"] = finite_or_zero(overall.required_bytes_per_s);
  m["stall_bytes_per_s"] = overall.measured_bytes_per_s;
  m["projected_stall_seconds"] = finite_or_zero(overall.projected_seconds);
  m["budget_margin"] = finite_or_zero(overall.margin);
  put_latency_metrics(total.latency, "latency_", LatencyMetrics::kShort, &m);
  if (p.two_tier) fill_tier_metrics(mine.tier, jd.write_bytes_sum, jd.drain_sum, result);
  if (p.async || p.two_tier) {
    m["drain_overruns"] = static_cast<double>(mine.overruns);
    const double projected_drain = jd.bytes_per_cp > 0 ? jd.drain_max * full / jd.bytes_per_cp : 0.0;
    m["projected_drain_seconds"] = projected_drain;
    // The background write of a full-size checkpoint must end before the next one is due.
    m["drain_margin"] =
        projected_drain > 0 ? std::max(0.0, p.interval_s - overall.projected_seconds) / projected_drain : 0.0;
  }
}

// details.budget: the verdict and the figures it took.
json budget_details(const CheckpointParams& p, const ShardLayout& l, const Judged& jd,
                    const BudgetVerdict& overall) {
  json budget = to_json(overall);
  // Figures and codes only: the reporters say in words what they mean (reports/phase_definitions.cc).
  budget["budget_fraction"] = p.budget_fraction;
  budget["interval_seconds"] = p.interval_s;
  budget["scale"] = p.scale;
  budget["projection_basis"] = "slowest_checkpoint_aggregate";
  budget["projection_writers"] = l.shards;
  budget["worst_checkpoint_projected_seconds"] = finite_or_zero(jd.worst_projected);
  return budget;
}

// details.stall_includes: what a checkpoint's stall times.
json stall_includes(const PhaseContext& ctx, const CheckpointParams& p) {
  if (p.async) return json::array({"staging_copy"});
  // Megatron's save: torch.save's writes and closes, then rank 0's tracker, nothing synced (durable_seconds).
  if (p.commit == CommitMode::kMegatron && !ctx.store->caps().commit_per_file) {
    return json::array({"write", "close", "tracker"});
  }
  return json::array({"write", "fsync", "commit"});
}

// With a model: the plan the shards follow (details.model) and the layout's tensor files (details.layout).
void fill_model_details(const CheckpointParams& p, const ShardLayout& l, PhaseResult* result) {
  // The plan the shards follow: shard i holds plan_ranks_per_shard[i] planned ranks' bytes / scale.
  json& model = result->details["model"];
  model["spec"] = to_json(*p.model);
  model["plan_ranks"] = p.plan_rank_bytes.size();
  const uint64_t most = *std::max_element(p.plan_rank_bytes.begin(), p.plan_rank_bytes.end());
  model["plan_rank_bytes_max"] = most;
  // Every planned rank's bytes at full size, and how far the largest is above the mean: the skew
  // a replica writer produces (first: the data-parallel degree when one replica writes it all).
  model["plan_rank_bytes"] = p.plan_rank_bytes;
  model["replica_writer"] = replica_writer_name(p.replica_writer);
  model["rank_bytes_skew"] = rank_skew(p.plan_rank_bytes);
  if (!l.plan_ranks_per_shard.empty()) {
    model["plan_ranks_per_shard_max"] =
        *std::max_element(l.plan_ranks_per_shard.begin(), l.plan_ranks_per_shard.end());
  }
  result->details["layout"]["shard_bytes_min"] = *std::min_element(l.sizes.begin(), l.sizes.end());
  result->details["layout"]["kind"] = layout_kind_name(p.layout);
  if (p.layout == CheckpointLayoutKind::kDcp) result->details["layout"]["files_per_rank"] = p.threads;
  if (!l.files.empty()) {
    uint64_t records = 0;
    for (const PlannedFile& f : l.files) records += f.records.size();
    result->details["layout"]["tensor_records"] = records;
    result->details["layout"]["commit_file"] = commit_file_name(p.layout);
    describe_torch_layout(p, l, result);
  }
}

void fill_details(const PhaseContext& ctx, const CheckpointParams& p, const ShardLayout& l,
                  const CheckpointRun& mine, const AllRanks& all, const Judged& jd,
                  const BudgetVerdict& overall, PhaseResult* result) {
  result->details["budget"] = budget_details(p, l, jd, overall);
  result->details["checkpoints"] = jd.per_cp;
  result->details["mode"] = p.async ? "async" : "sync";
  // Tensor layouts make their content in chunks of each tensor; the others in blocks of each shard.
  result->details["data_reducibility"] =
      reducibility_details(p.reduce, p.files ? kTensorChunk : p.block_size);
  result->details["stall_includes"] = stall_includes(ctx, p);
  result->details["commit"] = p.commit == CommitMode::kMegatron ? "megatron" : "durable";
  if (p.two_tier) fill_tier_details(p, mine.tier, result);
  result->details["layout"] = {{"ranks", ctx.comm.size()},
                               {"workers", p.workers},
                               {"writer_fraction", p.writer_fraction},
                               {"shards", l.shards},
                               {"shard_bytes", l.shard_bytes},
                               {"checkpoint_bytes", l.checkpoint_bytes()},
                               {"full_checkpoint_bytes", p.full_bytes},
                               {"scale", p.scale},
                               {"folder", ctx.run_dir_path + "/" + ctx.phase_name},
                               {"kept_checkpoints", p.keep}};
  if (p.params > 0) {
    result->details["model"] = {{"params", p.params}, {"bytes_per_param", p.bytes_per_param}};
  }
  if (p.model) fill_model_details(p, l, result);
  result->details["timing"] = {{"interval_seconds", p.interval_s}, {"gap_seconds", p.gap_s}};
  // How dlio_save_* are made, as DLIO makes its published figure (docs/mlperf.md).
  if (!p.async && !p.two_tier) {
    result->details["dlio_save"] = {{"timed_rank", 0}, {"fsync", false}, {"throughput", "mean_of_rates"}};
  }
  result->details["stale_tmp_removed"] = mine.stale_removed;
  put_io_details(all.total, all.per_rank, p.engine, result);
}

}  // namespace

double rank_skew(const std::vector<uint64_t>& rank_bytes) {
  if (rank_bytes.empty()) return 1;
  const double sum = static_cast<double>(std::accumulate(rank_bytes.begin(), rank_bytes.end(), uint64_t{0}));
  if (sum == 0) return 1;
  const auto most = static_cast<double>(*std::max_element(rank_bytes.begin(), rank_bytes.end()));
  return most / (sum / static_cast<double>(rank_bytes.size()));
}

Status report_checkpoints(PhaseContext& ctx, const CheckpointParams& p, const ShardLayout& l,
                          const CheckpointRun& mine, PhaseResult* result) {
  AllRanks all(p.series_interval_ns);
  Status worst = mine.worst;
  const int ranks = ctx.comm.size();
  // Every engine of this rank is gone by now, and rank 0's commits are done: the figures are whole.
  // Rank 0 folds each rank in as it reads it (docs/scale.md): it never holds every rank's tally.
  Status g = gather_fold_to_root(
      ctx.comm, RankResult{mine.tally, mine.done, mine.worst, take_request_stats_json(*ctx.store)},
      [&](size_t r, RankResult&& one) { merge_rank(r, ranks, std::move(one), &all, &worst); });
  if (!g.ok()) return g;
  if (ctx.comm.rank() != 0) return worst;

  const double allowed = allowed_stall_seconds(p.interval_s, p.budget_fraction);
  const Judged jd = judge_checkpoints(p, mine, all, allowed);
  // The overall verdict is the worst checkpoint's: every checkpoint must fit the budget.
  const BudgetVerdict overall = evaluate_budget(allowed, jd.stall_max, jd.bytes_per_cp, p.full_bytes);
  fill_metrics(p, l, mine, all, jd, allowed, overall, result);
  fill_details(ctx, p, l, mine, all, jd, overall, result);
  RequestStats requests;
  const bool on_objects = merge_request_stats(all.requests, &requests);
  if (on_objects) put_request_metrics(requests, all.total.seconds(), result);
  if (!p.direct && !on_objects && p.commit == CommitMode::kMegatron) {
    // As in the job: what the stall leaves in the page cache is written back after it.
    result->warnings.push_back(
        "commit megatron: the stall ends with the bytes in the page cache, unsynced, as Megatron-LM's "
        "torch.save leaves them; durable_seconds_max adds the sync after it");
  } else if (!p.direct && !on_objects) {
    result->warnings.push_back(
        "buffered writes (direct: false): the page cache absorbs writes until each shard's "
        "fsync, which is inside the measured time");
  }
  if ((p.async || p.two_tier) && mine.overruns > 0) {
    const std::string msg = std::to_string(mine.overruns) +
                            " checkpoint(s) started before the previous one had drained "
                            "(longest drain " +
                            units::format_duration(jd.drain_max) + ", gap " +
                            units::format_duration(p.gap_s) + (p.two_tier ? kTierOverrun : kAsyncOverrun);
    result->warnings.push_back(msg);
    keep_worst(&worst, Status::IoError(msg));
  }
  return worst;
}

}  // namespace iofab
