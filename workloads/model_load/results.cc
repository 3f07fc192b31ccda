#include "workloads/model_load/results.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "harness/comm/rank_gather.h"
#include "harness/core/units.h"
#include "harness/engines/engine_choice.h"
#include "harness/phase/io_details.h"
#include "workloads/checkpoint/budget.h"

namespace iofab {
namespace {

using nlohmann::json;

double finite_or_zero(double v) { return std::isfinite(v) ? v : 0; }

// What one rank sends rank 0.
struct RankLoad {
  std::string host;
  IoTally tally;
  std::vector<uint64_t> ready_ns;  // per replica; 0: not ready
  uint64_t header_ns_max = 0;
  uint64_t verify_ns = 0, verified = 0;
  uint64_t checked = 0, resident = 0;
  std::string drop_problem;
  double write_seconds = 0;
  std::vector<BadWeightFile> bad;
  Status status;
  // safetensors' ready (safetensors_ready.h): per replica, 0 not ready; one replica's tensors and bytes.
  std::vector<uint64_t> st_ready_ns;
  uint64_t st_tensors = 0, st_bytes = 0, st_checked = 0, st_resident = 0;
  std::string st_error;
  static constexpr auto wire_fields() {
    using R = RankLoad;
    return std::tuple{wire_field("host", &R::host),
                      wire_field("tally", &R::tally),
                      wire_field("ready_ns", &R::ready_ns),
                      wire_field("header_ns_max", &R::header_ns_max),
                      wire_field("verify_ns", &R::verify_ns),
                      wire_field("verified", &R::verified),
                      wire_field("checked", &R::checked),
                      wire_field("resident", &R::resident),
                      wire_field("drop_problem", &R::drop_problem),
                      wire_field("write_seconds", &R::write_seconds),
                      wire_field("bad", &R::bad),
                      wire_field("status", &R::status),
                      wire_field("st_ready_ns", &R::st_ready_ns),
                      wire_field("st_tensors", &R::st_tensors),
                      wire_field("st_bytes", &R::st_bytes),
                      wire_field("st_checked", &R::st_checked),
                      wire_field("st_resident", &R::st_resident),
                      wire_field("st_error", &R::st_error)};
  }
};

RankLoad local_result(const ModelLoadParams& p, const LoadSetup& setup, const std::vector<Replica>& replicas,
                      const Status& local) {
  RankLoad mine;
  mine.tally = IoTally(p.series_interval_ns);
  for (const Replica& r : replicas) {
    mine.tally.merge(r.tally);
    mine.ready_ns.push_back(r.ready_ns);
    mine.header_ns_max = std::max(mine.header_ns_max, r.header_ns);
    mine.verify_ns += r.verify_ns;
    mine.verified += r.verified_bytes;
    mine.bad.insert(mine.bad.end(), r.bad.begin(), r.bad.end());
    mine.st_ready_ns.push_back(r.safetensors.ready_ns);
    mine.st_tensors = std::max(mine.st_tensors, r.safetensors.tensors);
    mine.st_bytes = std::max(mine.st_bytes, r.safetensors.bytes);
    if (mine.st_error.empty()) mine.st_error = r.safetensors.error;
  }
  mine.st_checked = setup.safetensors_drop.checked;
  mine.st_resident = setup.safetensors_drop.resident;
  mine.checked = setup.drop.checked;
  mine.resident = setup.drop.resident;
  mine.drop_problem = setup.drop.problem;
  mine.write_seconds = setup.write_seconds;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  mine.host = host;
  mine.status = local;
  return mine;
}

struct AllRanks {
  explicit AllRanks(uint64_t series_interval_ns) : total(series_interval_ns) {}
  IoTally total;
  std::vector<double> ready_s;  // every replica that got ready
  uint64_t replicas = 0;
  uint64_t header_ns_max = 0, verify_ns = 0, verified = 0, checked = 0, resident = 0;
  double write_seconds = 0;  // the slowest rank's
  std::string drop_problem;
  std::map<std::string, std::string> bad;  // file -> first reason
  bool unreadable = false;
  json per_rank = json::array();
  std::vector<double> st_ready_s;  // every replica ready as safetensors defines it
  uint64_t st_tensors = 0, st_bytes = 0, st_checked = 0, st_resident = 0;
  std::string st_error;
};

void merge_ranks(const std::vector<RankLoad>& gathered, AllRanks* all, Status* worst) {
  for (size_t r = 0; r < gathered.size(); ++r) {
    const RankLoad& g = gathered[r];
    all->total.merge(g.tally);
    json ready = json::array();
    for (uint64_t ns : g.ready_ns) {
      ++all->replicas;
      if (ns > 0) all->ready_s.push_back(ns * 1e-9);
      ready.push_back(ns > 0 ? json(ns * 1e-9) : json(nullptr));
    }
    all->header_ns_max = std::max(all->header_ns_max, g.header_ns_max);
    all->verify_ns += g.verify_ns;
    all->verified += g.verified;
    all->checked += g.checked;
    all->resident += g.resident;
    all->write_seconds = std::max(all->write_seconds, g.write_seconds);
    for (uint64_t ns : g.st_ready_ns) {
      if (ns > 0) all->st_ready_s.push_back(ns * 1e-9);
    }
    all->st_tensors = std::max(all->st_tensors, g.st_tensors);
    all->st_bytes = std::max(all->st_bytes, g.st_bytes);
    all->st_checked += g.st_checked;
    all->st_resident += g.st_resident;
    if (all->st_error.empty()) all->st_error = g.st_error;
    if (all->drop_problem.empty()) all->drop_problem = g.drop_problem;
    for (const auto& b : g.bad) {
      all->bad.emplace(b.name, b.reason);
      all->unreadable = all->unreadable || b.io;
    }
    all->per_rank.push_back({{"rank", r},
                             {"host", g.host},
                             {"bytes", g.tally.bytes},
                             {"seconds", g.tally.seconds()},
                             {"bytes_per_s", g.tally.bytes_per_s()},
                             {"ready_seconds", ready},
                             {"error", g.status.message()}});
    if (!g.status.ok() && r != 0) {
      keep_worst(worst,
                 Status::FromCode(g.status.code(), "rank " + std::to_string(r) + ": " + g.status.message()));
    }
  }
}

// safetensors' ready beside iofab's verified read (ready_max, 0 when a replica was not ready).
void fill_safetensors_metrics(const ModelLoadParams& p, const AllRanks& all, double ready_max,
                              PhaseResult* result) {
  if (!p.safetensors_ready) return;
  const bool all_ready = !all.st_ready_s.empty() && all.st_ready_s.size() == all.replicas;
  if (all_ready) {
    const double most = *std::max_element(all.st_ready_s.begin(), all.st_ready_s.end());
    double sum = 0;
    for (double s : all.st_ready_s) sum += s;
    result->metrics["safetensors_ready_seconds_max"] = most;
    result->metrics["safetensors_ready_seconds_mean"] = sum / static_cast<double>(all.st_ready_s.size());
    if (ready_max > 0) result->metrics["safetensors_ready_ratio"] = most / ready_max;
  }
  const ItemCosts spin = p.safetensors_costs.spin();
  result->details["safetensors"] = {
      {"definition",
       "safetensors.torch.load_file (mmap, header parsed, a view per tensor) then each tensor copied once, "
       "in sorted-name order"},
      {"tensors_per_replica", all.st_tensors},
      {"bytes_copied_per_replica", all.st_bytes},
      {"costs", p.safetensors_costs.to_json("tensor_s")},
      {"costs_from", p.costs_from_file ? "calibration file" : "built-in defaults"},
      {"calibration", p.calibration.provenance()},
      {"spin_seconds_per_replica",
       spin.seconds(static_cast<double>(all.st_tensors), static_cast<double>(all.st_bytes))},
      {"cache_resident_fraction",
       all.st_checked > 0 ? static_cast<double>(all.st_resident) / static_cast<double>(all.st_checked) : 0.0},
      {"io_uring",
       "not used: safetensors' io_uring engine (bindings/python/src/pipeline/iouring.rs) is a "
       "scaffold and load_file never takes it (docs/phases/model_load.md)"},
      {"error", all.st_error}};
  if (!all.st_error.empty()) {
    result->warnings.push_back("safetensors_ready not measured: " + all.st_error);
  }
}

void fill_metrics(const ModelLoadParams& p, const LoadSetup& setup, const AllRanks& all,
                  PhaseResult* result) {
  auto& mt = result->metrics;
  uint64_t file_bytes = 0;
  for (const WeightFile& f : setup.files) file_bytes += f.bytes;
  const ModelIndex& ix = setup.index;
  // A replica loads the files; at full size the tensors grow by full / written.
  const double grow =
      ix.total_size > 0 ? static_cast<double>(ix.full_size) / static_cast<double>(ix.total_size) : 1;
  const double full_load = static_cast<double>(file_bytes) * grow;
  const bool all_ready = !all.ready_s.empty() && all.ready_s.size() == all.replicas;
  double sum = 0;
  for (double s : all.ready_s) sum += s;
  const double ready_max = all_ready ? *std::max_element(all.ready_s.begin(), all.ready_s.end()) : 0;
  if (all_ready) {
    mt["ready_seconds_max"] = ready_max;
    mt["ready_seconds_min"] = *std::min_element(all.ready_s.begin(), all.ready_s.end());
    mt["ready_seconds_mean"] = sum / static_cast<double>(all.ready_s.size());
    mt["projected_ready_seconds"] =
        finite_or_zero(projected_seconds(full_load, static_cast<double>(file_bytes) / ready_max));
  }
  mt["replicas"] = static_cast<double>(all.replicas);
  mt["read_bytes"] = static_cast<double>(all.total.bytes);
  mt["read_bytes_per_s"] = all.total.bytes_per_s();
  mt["model_bytes"] = static_cast<double>(file_bytes);
  mt["full_model_bytes"] = full_load;
  if (ix.parameters > 0) mt["parameters"] = static_cast<double>(ix.parameters);
  mt["shard_files"] = static_cast<double>(setup.files.size());
  // An engine that moves no data (null) hands back no bytes to parse or verify: not measured, not 0.
  if (engine_moves_data(setup.engine)) {
    mt["corrupt_files"] = static_cast<double>(all.bad.size());
    mt["verified_bytes"] = static_cast<double>(all.verified);
    mt["verify_bytes_per_s"] =
        all.verify_ns > 0 ? static_cast<double>(all.verified) / (all.verify_ns * 1e-9) : 0.0;
    mt["header_seconds_max"] = all.header_ns_max * 1e-9;
  }
  fill_safetensors_metrics(p, all, ready_max, result);
  put_latency_metrics(all.total.latency, "latency_", LatencyMetrics::kShort, &mt);
  mt["cache_resident_fraction"] =
      all.checked > 0 ? static_cast<double>(all.resident) / static_cast<double>(all.checked) : 0.0;
  if (setup.wrote) mt["write_seconds"] = all.write_seconds;
  if (p.ready_budget_s > 0 && all_ready) {
    const BudgetVerdict v =
        evaluate_budget(p.ready_budget_s, ready_max, static_cast<double>(file_bytes), full_load);
    mt["allowed_ready_seconds"] = v.allowed_seconds;
    mt["required_read_bytes_per_s"] = finite_or_zero(v.required_bytes_per_s);
    mt["ready_budget_margin"] = finite_or_zero(v.margin);
    json b = to_json(v);
    b["projection_basis"] = "slowest_replica";  // one replica's bytes over the slowest replica's time
    result->details["ready_budget"] = b;
  }
}

void fill_details(const PhaseContext& ctx, const ModelLoadParams& p, const LoadSetup& setup,
                  const AllRanks& all, PhaseResult* result) {
  json files = json::array();
  for (const WeightFile& f : setup.files) files.push_back({{"name", f.name}, {"bytes", f.bytes}});
  result->details["weights"] = {{"folder", ctx.run_dir_path + "/" + setup.folder},
                                {"written_by_this_phase", setup.wrote},
                                {"weights_from", p.weights_from},
                                {"files", files},
                                {"tensor_bytes", setup.index.total_size},
                                {"full_tensor_bytes", setup.index.full_size},
                                {"model", setup.wrote ? p.model.name : std::string()},
                                {"scale", setup.wrote ? p.scale : 0.0}};
  result->details["madvise"] = std::string(map_advice_name(p.madvise));
  result->details["replicas"] = all.replicas;
  result->details["verify_seconds"] = all.verify_ns * 1e-9;
  json bad = json::array();
  for (const auto& [name, reason] : all.bad) bad.push_back({{"name", name}, {"reason", reason}});
  result->details["bad_files"] = bad;
  put_io_details(all.total, all.per_rank, setup.engine, result);
}

void add_warnings(const ModelLoadParams& p, const LoadSetup& setup, const AllRanks& all,
                  PhaseResult* result) {
  if (!engine_moves_data(setup.engine)) {
    result->warnings.push_back(
        "engine " + setup.engine +
        " moves no data: no header was parsed and no tensor byte verified "
        "(corrupt_files, verified_bytes, verify_bytes_per_s and header_seconds_max are "
        "not measured)");
  }
  if (all.replicas > 1) {
    result->warnings.push_back(
        "replicas on one host share its page cache: the first to read a page brings it from storage, the "
        "others read it from memory (as inference servers on one node do)");
  }
  if (!p.drop_cache) {
    result->warnings.push_back(
        "drop_cache: false: cached pages of the weights were kept; the load may be warm");
  } else if (!all.drop_problem.empty()) {
    result->warnings.push_back("could not drop cached pages (" + all.drop_problem +
                               "): the load may be partly warm");
  }
  if (p.drop_cache && all.checked > 0 && all.resident > all.checked / 100) {
    result->warnings.push_back(units::format_bytes(static_cast<double>(all.resident)) + " of " +
                               units::format_bytes(static_cast<double>(all.checked)) +
                               " stayed in the page cache after dropping it: figures partly measure memory");
  }
}

void judge_files(const AllRanks& all, size_t files, Status* worst, PhaseResult* result) {
  if (all.bad.empty() || worst->code() == Status::Code::kInterrupted) return;
  std::string text = "model_load failed verification: " + std::to_string(all.bad.size()) + " of " +
                     std::to_string(files) + " files bad:";
  for (const auto& [name, reason] : all.bad) text += " " + name + ": " + reason + ";";
  text.pop_back();
  if (worst->ok() && !all.unreadable) {
    result->failure = text;
  } else if (worst->ok()) {
    *worst = Status::IoError(text);
  } else {
    *worst = Status::IoError(worst->message() + "; " + text);
  }
}

}  // namespace

Status report_model_load(PhaseContext& ctx, const ModelLoadParams& p, const LoadSetup& setup,
                         const std::vector<Replica>& replicas, const Status& local, PhaseResult* result) {
  std::vector<RankLoad> gathered;
  Status g = gather_to_root(ctx.comm, local_result(p, setup, replicas, local), &gathered);
  if (!g.ok()) return g;
  if (ctx.comm.rank() != 0) return local;
  AllRanks all(p.series_interval_ns);
  Status worst = local;
  merge_ranks(gathered, &all, &worst);
  fill_metrics(p, setup, all, result);
  fill_details(ctx, p, setup, all, result);
  add_warnings(p, setup, all, result);
  judge_files(all, setup.files.size(), &worst, result);
  return worst;
}

}  // namespace iofab
