#include "workloads/collectives/results.h"

#include <algorithm>
#include <map>
#include <string>

#include "workloads/collectives/bus_bandwidth.h"
#include "workloads/collectives/coll_ops.h"
#include "workloads/collectives/step_stats.h"
#include "workloads/collectives/sweep_stats.h"

namespace iofab {

using nlohmann::json;

bool add_sweep_results(const std::vector<std::vector<SizeSample>>& per_rank, const SweepSpec& spec,
                       PhaseResult* result) {
  std::vector<SizeStats> stats;
  if (!merge_sweep(per_rank, spec.across, &stats)) return false;
  auto& m = result->metrics;
  json sizes = json::array();
  uint64_t wrong = 0;
  bool checked = false;
  double skew_max = 0;
  std::map<std::string, std::pair<double, int>> busbw_sum;  // op -> (sum, runs): nccl-tests' average
  for (const auto& s : stats) {
    const std::string op(coll_op_name(s.op));
    // An in-place run goes beside its size's out-of-place one when the op has both (nccl-tests'
    // two column groups); an op with one placement has only its plain figures.
    const bool beside = s.in_place && s.op->out_of_place && spec.out_of_place;
    if (beside && !sizes.empty() && sizes.back()["op"] == op && sizes.back()["size"] == s.size) {
      sizes.back()["in_place"] = s.to_json();
    } else {
      json entry = s.to_json();
      entry["in_place"] = s.in_place;
      sizes.push_back(std::move(entry));
    }
    if (!s.ran) continue;
    const std::string size = std::to_string(s.size);
    const std::string place = beside ? "in_place." : "";
    m["busbw." + op + "." + place + size] = s.busbw;
    m["algbw." + op + "." + place + size] = s.algbw;
    m["busbw." + op + ".max"] = std::max(m["busbw." + op + ".max"], s.busbw);
    m["algbw." + op + ".max"] = std::max(m["algbw." + op + ".max"], s.algbw);
    busbw_sum[op].first += s.busbw;
    busbw_sum[op].second += 1;
    wrong += s.wrong;
    checked = checked || s.checked;
    skew_max = std::max(skew_max, s.skew);
  }
  for (const auto& [op, sum] : busbw_sum) m["busbw." + op + ".avg"] = sum.first / sum.second;
  if (checked) m["wrong_elements"] = static_cast<double>(wrong);
  m["rank_skew_max"] = skew_max;
  json ops = json::array();
  json factors = json::object();  // busbw / algbw per op at this rank count: 0 for most ops on one rank
  for (CollOp op : spec.ops) {
    ops.push_back(coll_op_name(op));
    factors[std::string(coll_op_name(op))] = bus_factor(op, static_cast<int>(per_rank.size()));
  }
  json placements = json::array();
  if (spec.out_of_place) placements.push_back("out_of_place");
  if (spec.in_place) placements.push_back("in_place");
  result->details["sweep"] = {{"ops", ops},
                              {"dtype", dtype_name(spec.dtype)},
                              {"redop", redop_name(spec.redop)},
                              {"iters", spec.iters},
                              {"warmup", spec.warmup},
                              {"check", spec.check},
                              {"ranks", per_rank.size()},
                              {"bus_factor", factors},
                              {"time_across_ranks", time_across_ranks_name(spec.across)},
                              {"time_definition", time_across_ranks_meaning(spec.across)},
                              {"placements", placements},
                              {"sizes", sizes}};
  if (checked && wrong > 0) {
    result->warnings.push_back(std::to_string(wrong) +
                               " wrong elements in collective results: see details.sweep");
  }
  return true;
}

void add_step_results(std::string_view mode, const StepSchedule& schedule, double analytic, int ranks,
                      const std::vector<std::vector<StepTiming>>& per_rank, PhaseResult* result) {
  const StepStats st = merge_steps(per_rank);
  const std::string p(mode);
  auto& m = result->metrics;
  m[p + ".step_seconds"] = st.step_s;
  m[p + ".comm_seconds"] = st.comm_s;
  m[p + ".compute_seconds"] = st.compute_s;
  m[p + ".exposed_comm_seconds"] = st.exposed_s;
  m["exposed_comm_fraction." + p] = st.exposed_fraction;
  m[p + ".bytes_per_rank"] = schedule_bytes_per_rank(schedule, ranks);
  m[p + ".bytes_per_rank_analytic"] = analytic;
  m[p + ".collectives"] = static_cast<double>(schedule.comm.size());
  json steps = json::array();
  for (size_t k = 0; k < (per_rank.empty() ? 0 : per_rank[0].size()); ++k) {
    double slowest = 0;
    for (const auto& r : per_rank) slowest = k < r.size() ? std::max(slowest, r[k].step_s) : slowest;
    steps.push_back(slowest);
  }
  json d = st.to_json();
  d["step_seconds_per_step"] = steps;
  d["bytes_per_rank"] = m[p + ".bytes_per_rank"];
  d["bytes_per_rank_analytic"] = analytic;
  d["nominal_compute_s"] = schedule_compute_seconds(schedule);
  d["schedule"] = schedule_to_json(schedule);
  result->details[p].update(d);
}

void add_ratios(PhaseResult* result) {
  auto& m = result->metrics;
  const auto ratio = [&](const std::string& fsdp, const std::string& ddp, const std::string& name) {
    auto f = m.find(fsdp), d = m.find(ddp);
    if (f != m.end() && d != m.end() && d->second > 0) m[name] = f->second / d->second;
  };
  ratio("fsdp.bytes_per_rank", "ddp.bytes_per_rank", "fsdp_ddp_bytes_ratio");
  ratio("fsdp.step_seconds", "ddp.step_seconds", "fsdp_ddp_step_ratio");
  ratio("fsdp.comm_seconds", "ddp.comm_seconds", "fsdp_ddp_comm_ratio");
}

}  // namespace iofab
