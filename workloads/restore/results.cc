#include "workloads/restore/results.h"

#include <unistd.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "harness/comm/rank_gather.h"
#include "harness/core/units.h"
#include "harness/engines/engine_choice.h"
#include "harness/phase/io_details.h"
#include "harness/phase/request_metrics.h"
#include "workloads/checkpoint/budget.h"
#include "workloads/checkpoint/mlperf_figures.h"

namespace iofab {
namespace {

using nlohmann::json;

double finite_or_zero(double v) { return std::isfinite(v) ? v : 0; }

// What one rank sends rank 0: its readers, merged, and its outcome.
struct RankRestore {
  std::string host;
  IoTally tally;
  uint64_t verify_ns = 0, verified = 0, checked = 0, resident = 0;
  std::string drop_problem;  // the first reader's
  std::vector<BadShard> bad;
  std::optional<uint64_t> device_read_bytes;
  Status status;
  json requests;  // an object store's request figures (null on files)
  static constexpr auto wire_fields() {
    using R = RankRestore;
    return std::tuple{wire_field("host", &R::host),
                      wire_field("tally", &R::tally),
                      wire_field("verify_ns", &R::verify_ns),
                      wire_field("verified_bytes", &R::verified),
                      wire_field("checked_bytes", &R::checked),
                      wire_field("resident_bytes", &R::resident),
                      wire_field("drop_problem", &R::drop_problem),
                      wire_field("bad", &R::bad),
                      wire_optional("device_read_bytes", &R::device_read_bytes),
                      wire_field("status", &R::status),
                      wire_optional("requests", &R::requests)};
  }
};

// This rank's readers, merged, as rank 0 receives them.
RankRestore local_result(const RestoreParams& p, const std::vector<Reader>& rds,
                         std::optional<uint64_t> device_read_bytes, const Status& local) {
  RankRestore mine;
  mine.tally = IoTally(p.series_interval_ns);
  for (const auto& rd : rds) {
    mine.tally.merge(rd.tally);
    mine.verify_ns += rd.verify_ns;
    mine.verified += rd.verified_bytes;
    mine.checked += rd.checked_bytes;
    mine.resident += rd.resident_bytes;
    if (mine.drop_problem.empty()) mine.drop_problem = rd.drop_problem;
    mine.bad.insert(mine.bad.end(), rd.bad.begin(), rd.bad.end());
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  mine.host = host;
  mine.device_read_bytes = device_read_bytes;
  mine.status = local;
  return mine;
}

// Every rank's results, as rank 0 merges them.
struct AllRanks {
  explicit AllRanks(uint64_t series_interval_ns) : total(series_interval_ns) {}
  IoTally total;
  json per_rank = json::array();
  std::map<std::string, std::string> bad_shards;  // name -> first reason
  bool unreadable = false;                        // a shard could not be read: an error, not a verdict
  double device_bytes = 0;
  bool have_device = false;
  uint64_t verify_ns = 0, verified = 0, checked = 0, resident = 0;
  std::string drop_problem;
  std::set<std::string> hosts_counted;  // hosts whose disk counters are in device_bytes
  std::vector<json> requests;           // each rank's request figures (null on files)
};

// Rank r's results into all, as rank 0 reads them (one at a time: gather_fold_to_root).
void merge_rank(size_t r, RankRestore&& g, AllRanks* all, Status* worst) {
  {
    const IoTally& t = g.tally;
    all->total.merge(t);
    all->verify_ns += g.verify_ns;
    all->verified += g.verified;
    all->checked += g.checked;
    all->resident += g.resident;
    if (all->drop_problem.empty()) all->drop_problem = g.drop_problem;
    all->per_rank.push_back({{"rank", r},
                             {"bytes", t.bytes},
                             {"seconds", t.seconds()},
                             {"bytes_per_s", t.bytes_per_s()},
                             {"error", g.status.message()}});
    if (!g.status.ok() && r != 0) {
      keep_worst(worst,
                 Status::FromCode(g.status.code(), "rank " + std::to_string(r) + ": " + g.status.message()));
    }
    for (const auto& b : g.bad) {
      all->bad_shards.emplace(b.name, b.reason);
      all->unreadable = all->unreadable || b.io;
    }
    // One figure per host: ranks on one host share its disk counters.
    if (g.device_read_bytes && all->hosts_counted.insert(g.host).second) {
      all->device_bytes += static_cast<double>(*g.device_read_bytes);
      all->have_device = true;
    }
    all->requests.push_back(std::move(g.requests));
  }
}

// read: tensors: the job that loaded, the bytes it needed beside the checkpoint's, how it read them.
void put_tensor_details(const Manifest& m, const TensorRestore& t, bool weights_only, PhaseResult* result) {
  const double ckpt = static_cast<double>(m.total_bytes());
  result->details["read"] = "tensors";
  result->details["tensors"] = {
      {"loaded_as",
       {{"tensor", t.target.tensor},
        {"pipeline", t.target.pipeline},
        {"data", t.target.data},
        {"zero", t.target.zero},
        {"ranks", t.target.ranks()}}},
      {"saved_as", m.model ? nlohmann::json{{"tensor", m.model->tensor},
                                            {"pipeline", m.model->pipeline},
                                            {"data", m.model->data},
                                            {"zero", m.model->zero},
                                            {"ranks", m.model->ranks()}}
                           : nlohmann::json()},
      {"weights_only", weights_only},
      {"bytes_loaded", t.tensor_bytes},
      {"fraction_of_checkpoint", ckpt > 0 ? static_cast<double>(t.tensor_bytes) / ckpt : 0.0},
      {"slices", t.slices},
      {"partial_slices", t.partial_slices}};
}

// Each checkpoint read: with several (steps > 1), the restore's time is theirs added up, not the span
// from the first to the last with the untimed setups between them. MLPerf Storage's figures, as it
// defines them: a read's duration is the slowest rank's, its throughput the checkpoint's GiB (not the
// bytes fan-out reads) over the mean duration; beside them DLIO's formula, the mean of each read's rate,
// on the same durations, and the figure DLIO publishes: rank 0's own reads, the mean of their rates.
void put_passes(const std::vector<RestorePass>& passes, uint64_t read_bytes, PhaseResult* result) {
  if (passes.empty()) return;
  double sum = 0;
  double checkpoints = 0;
  std::vector<double> slowest, own;
  json list = json::array();
  for (const RestorePass& r : passes) {
    sum += r.seconds;
    checkpoints += static_cast<double>(r.checkpoint_bytes);
    slowest.push_back(r.seconds);
    own.push_back(r.own_seconds);
    list.push_back({{"step", r.step},
                    {"seconds", r.seconds},
                    {"rank0_seconds", r.own_seconds},
                    {"checkpoint_bytes", r.checkpoint_bytes}});
  }
  auto& mt = result->metrics;
  const double size = checkpoints / static_cast<double>(passes.size());  // each read: one checkpoint
  mt["mlperf_load_seconds"] = mean_seconds(slowest);
  mt["mlperf_load_gib_per_s"] = rate_of_mean_gib_per_s(size, slowest);
  mt["mlperf_load_rate_mean_gib_per_s"] = mean_of_rates_gib_per_s(size, slowest);
  mt["dlio_load_seconds"] = mean_seconds(own);
  mt["dlio_load_gib_per_s"] = mean_of_rates_gib_per_s(size, own);
  mt["checkpoints_read"] = static_cast<double>(passes.size());
  if (passes.size() > 1) {
    mt["restore_seconds"] = sum;
    mt["read_bytes_per_s"] = sum > 0 ? static_cast<double>(read_bytes) / sum : 0.0;
    mt["read_write_ratio"] = checkpoints > 0 ? static_cast<double>(read_bytes) / checkpoints : 0.0;
  }
  result->details["passes"] = list;
}

void fill_metrics(const RestoreParams& p, const Manifest& m, const AllRanks& all,
                  const TensorRestore* tensors, PhaseResult* result) {
  const IoTally& total = all.total;
  const double ckpt_bytes = static_cast<double>(m.total_bytes());
  const double restore_s = total.seconds();
  const double read_bps = total.bytes_per_s();
  // Reading tensors, the job's reads at full size are what it loaded, scaled back.
  const double full_read = tensors != nullptr ? static_cast<double>(tensors->tensor_bytes) * m.scale
                                              : restore_read_bytes(m.full_bytes(), p.fanout);
  auto& mt = result->metrics;
  mt["read_bytes"] = static_cast<double>(total.bytes);
  mt["restore_seconds"] = restore_s;
  mt["read_bytes_per_s"] = read_bps;
  mt["read_write_ratio"] = ckpt_bytes > 0 ? static_cast<double>(total.bytes) / ckpt_bytes : 0.0;
  // Engine null reads no bytes: what verification would count is not measured, so not reported as 0.
  if (engine_moves_data(p.engine)) {
    mt["verify_bytes_per_s"] =
        all.verify_ns > 0 ? static_cast<double>(all.verified) / (all.verify_ns * 1e-9) : 0.0;
    mt["verified_bytes"] = static_cast<double>(all.verified);
    mt["corrupt_shards"] = static_cast<double>(all.bad_shards.size());
  }
  mt["checkpoint_bytes"] = ckpt_bytes;
  mt["shards"] = static_cast<double>(m.shards.size());
  mt["full_read_bytes"] = full_read;
  mt["projected_restore_seconds"] = finite_or_zero(projected_seconds(full_read, read_bps));
  put_latency_metrics(total.latency, "latency_", LatencyMetrics::kShort, &mt);
  if (!p.direct) {
    mt["cache_resident_fraction"] =
        all.checked > 0 ? static_cast<double>(all.resident) / static_cast<double>(all.checked) : 0.0;
  }
  if (all.have_device) mt["device_read_bytes"] = all.device_bytes;
  if (p.restore_budget_s > 0) {
    const BudgetVerdict v =
        evaluate_budget(p.restore_budget_s, restore_s, static_cast<double>(total.bytes), full_read);
    mt["allowed_restore_seconds"] = v.allowed_seconds;
    mt["required_read_bytes_per_s"] = finite_or_zero(v.required_bytes_per_s);
    mt["restore_budget_margin"] = finite_or_zero(v.margin);
    json b = to_json(v);
    b["projection_basis"] = "measured_read";  // the reporters say it in words
    b["fanout"] = p.fanout;
    result->details["restore_budget"] = b;
  }
}

void fill_details(const PhaseContext& ctx, const RestoreParams& p, const LocatedCheckpoint& cp,
                  uint64_t readers, const AllRanks& all, PhaseResult* result) {
  const Manifest& m = cp.manifest;
  const IoTally& total = all.total;
  result->details["checkpoint"] = {{"folder", cp.external ? cp.dir : ctx.run_dir_path + "/" + cp.dir},
                                   {"from_another_run", cp.external},
                                   {"step", m.step},
                                   {"written_by_phase", m.phase},
                                   {"created", m.created},
                                   {"shards", m.shards.size()},
                                   {"bytes", m.total_bytes()},
                                   {"full_checkpoint_bytes", m.full_bytes()},
                                   {"scale", m.scale}};
  result->details["read"] = "files";
  result->details["fanout"] = p.fanout;
  result->details["readers"] = readers;
  result->details["verify_seconds"] = all.verify_ns * 1e-9;
  json bad_list = json::array();
  for (const auto& [name, reason] : all.bad_shards) bad_list.push_back({{"name", name}, {"reason", reason}});
  result->details["bad_shards"] = bad_list;
  put_io_details(total, all.per_rank, p.engine, result);
}

void add_warnings(const RestoreParams& p, const AllRanks& all, bool on_objects, PhaseResult* result) {
  // An object store has no page cache here: every read is a GET.
  if (!p.direct && !on_objects) {
    result->warnings.push_back(
        "buffered reads (direct: false): readers of one shard on one host share the page "
        "cache, so only the first read of each shard there comes from storage");
    if (!p.drop_cache) {
      result->warnings.push_back(
          "drop_cache: false: cached pages of the checkpoint were kept; the restore may be warm");
    } else if (!all.drop_problem.empty()) {
      result->warnings.push_back("could not drop cached pages (" + all.drop_problem +
                                 "): the restore may be partly warm");
    }
    if (all.checked > 0 && all.resident > all.checked / 100) {
      result->warnings.push_back(
          units::format_bytes(static_cast<double>(all.resident)) + " of " +
          units::format_bytes(static_cast<double>(all.checked)) +
          " stayed in the page cache after dropping it: restore figures partly measure memory");
    }
  }
  if (!engine_moves_data(p.engine)) {
    result->warnings.push_back("engine " + p.engine +
                               " moves no data: nothing was verified; corrupt_shards, verified_bytes and "
                               "verify_bytes_per_s are not measured");
  }
}

// Bad shards: the phase fails verification, or errs when one could not be read.
void judge_shards(const Manifest& m, const AllRanks& all, Status* worst, PhaseResult* result) {
  if (all.bad_shards.empty() || worst->code() == Status::Code::kInterrupted) return;
  std::string text = "restore failed verification: " + std::to_string(all.bad_shards.size()) + " of " +
                     std::to_string(m.shards.size()) + " shards bad:";
  size_t n = 0;
  for (const auto& [name, reason] : all.bad_shards) {
    if (n++ == 8) {
      text += " ... (" + std::to_string(all.bad_shards.size() - 8) + " more in details.bad_shards)";
      break;
    }
    text += " " + name + ": " + reason + ";";
  }
  if (text.back() == ';') text.pop_back();
  // A checkpoint that reads back wrong is what the phase is there to catch: a failed phase with its
  // metrics (corrupt_shards) and checks, exit 1. Only a shard it could not read makes it an error.
  if (worst->ok() && !all.unreadable)
    result->failure = text;
  else if (worst->ok())
    *worst = Status::IoError(text);
  else
    *worst = Status::IoError(worst->message() + "; " + text);
}

}  // namespace

Status report_restore(PhaseContext& ctx, const RestoreParams& p, const LocatedCheckpoint& cp,
                      uint64_t readers, const std::vector<Reader>& rds, const TensorRestore* tensors,
                      const std::vector<RestorePass>& passes, std::optional<uint64_t> device_read_bytes,
                      const Status& local, PhaseResult* result) {
  RankRestore mine = local_result(p, rds, device_read_bytes, local);
  mine.requests =
      take_request_stats_json(*ctx.store);  // the readers' engines are gone: the figures are whole
  AllRanks all(p.series_interval_ns);
  Status worst = local;
  // Rank 0 folds each rank in as it reads it (docs/scale.md): it never holds every rank's tally.
  Status g = gather_fold_to_root(
      ctx.comm, mine, [&](size_t r, RankRestore&& one) { merge_rank(r, std::move(one), &all, &worst); });
  if (!g.ok()) return g;
  if (ctx.comm.rank() != 0) return local;

  fill_metrics(p, cp.manifest, all, tensors, result);
  put_passes(passes, all.total.bytes, result);
  if (passes.size() > 1) result->details["gap_seconds"] = p.gap_s;
  fill_details(ctx, p, cp, readers, all, result);
  if (tensors != nullptr) put_tensor_details(cp.manifest, *tensors, p.weights_only, result);
  RequestStats requests;
  const bool on_objects = merge_request_stats(all.requests, &requests);
  if (on_objects) put_request_metrics(requests, all.total.seconds(), result);
  add_warnings(p, all, on_objects, result);
  judge_shards(cp.manifest, all, &worst, result);
  return worst;
}

}  // namespace iofab
