#include "workloads/metadata/metadata_results.h"

#include <algorithm>
#include <cstdio>

#include "harness/core/units.h"
#include "harness/phase/io_details.h"
#include "harness/phase/request_metrics.h"

namespace iofab {

std::vector<MetricInfo> metadata_metric_table() {
  std::vector<MetricInfo> rows;
  // The rates first: the console's headline is the first four of the table (create, stat, open, read).
  for (const MdStepInfo& s : md_steps()) {
    const std::string n(s.name), what(s.what);
    rows.push_back(
        {.name = n + "_ops_per_s",
         .unit = Unit::kOpsPerSecond,
         .better = Better::kHigher,
         .description = n + ": every rank's operations / the slowest rank's time (one op: " + what + ")"});
  }
  std::rotate(rows.begin(), rows.begin() + 1, rows.end());  // mkdir's rate after the files' ones
  rows.push_back({.name = "stonewall_ops_per_s",
                  .unit = Unit::kOpsPerSecond,
                  .better = Better::kHigher,
                  .description =
                      "create: files every rank made until the stonewall / the stonewall's time (IO500's "
                      "rate-stonewall)"});
  rows.push_back({.name = "stonewall_seconds",
                  .unit = Unit::kSeconds,
                  .better = Better::kNeither,
                  .description = "create: the start to the last rank's stop at the stonewall"});
  rows.push_back({.name = "stonewall_items",
                  .unit = Unit::kCount,
                  .better = Better::kNeither,
                  .description = "create: files made until the stonewall, every rank"});
  rows.push_back({.name = "stonewall_items_min",
                  .unit = Unit::kCount,
                  .better = Better::kNeither,
                  .description = "create: the fewest a rank made until the stonewall"});
  rows.push_back(
      {.name = "stonewall_items_max",
       .unit = Unit::kCount,
       .better = Better::kNeither,
       .description =
           "create: the most a rank made until the stonewall (every rank made as many after the wear-out)"});
  rows.push_back({.name = "files",
                  .unit = Unit::kCount,
                  .better = Better::kNeither,
                  .description = "files the phase made, every rank"});
  rows.push_back({.name = "errors",
                  .unit = Unit::kCount,
                  .better = Better::kLower,
                  .description = "failed operations, every step"});
  // On an object store: the requests the steps sent (PUT, HEAD, GET, LIST, DELETE).
  for (const MetricInfo& m : request_metric_infos()) rows.push_back(m);
  for (const MdStepInfo& s : md_steps()) {
    const std::string n(s.name);
    rows.push_back({.name = n + "_ops",
                    .unit = Unit::kCount,
                    .better = Better::kNeither,
                    .description = n + ": operations done, every rank"});
    rows.push_back({.name = n + "_seconds",
                    .unit = Unit::kSeconds,
                    .better = Better::kLower,
                    .description = n + ": the slowest rank's time"});
    rows.push_back({.name = n + "_latency_p50_s",
                    .unit = Unit::kSeconds,
                    .better = Better::kLower,
                    .description = n + ": latency per operation, median"});
    rows.push_back({.name = n + "_latency_p99_s",
                    .unit = Unit::kSeconds,
                    .better = Better::kLower,
                    .description = n + ": latency, 99th percentile"});
    rows.push_back({.name = n + "_latency_max_s",
                    .unit = Unit::kSeconds,
                    .better = Better::kLower,
                    .description = n + ": latency, max"});
    rows.push_back({.name = n + "_errors",
                    .unit = Unit::kCount,
                    .better = Better::kLower,
                    .description = n + ": failed operations"});
  }
  return rows;
}

void put_stonewall_results(const MetadataParams& p, const MdStonewall& w, PhaseResult* result) {
  auto& m = result->metrics;
  const double seconds = static_cast<double>(w.ns) * 1e-9;
  m["stonewall_seconds"] = seconds;
  m["stonewall_items"] = static_cast<double>(w.items_sum);
  m["stonewall_items_min"] = static_cast<double>(w.items_min);
  m["stonewall_items_max"] = static_cast<double>(w.items_max);
  if (seconds > 0 && w.items_sum > 0) m["stonewall_ops_per_s"] = static_cast<double>(w.items_sum) / seconds;
  result->details["stonewall"] = {{"stonewall_seconds", p.stonewall},
                                  {"fired", w.fired},
                                  {"seconds", seconds},
                                  {"items", w.items_sum},
                                  {"items_min", w.items_min},
                                  {"items_max", w.items_max},
                                  {"files_per_rank_after_wear_out", w.wear_out_to}};
  if (!w.fired) {
    result->warnings.push_back("create: every rank made all " + std::to_string(p.files_per_rank) +
                               " files before the stonewall of " + units::format_duration(p.stonewall) +
                               ": IO500 rates such a run invalid (its create step must last the stonewall); "
                               "raise files_per_rank");
  }
}

void put_metadata_results(const MetadataParams& p, const MetadataPlan& plan, uint64_t made,
                          const std::vector<MdStep>& steps, const std::vector<MdTally>& total,
                          PhaseResult* result) {
  auto& m = result->metrics;
  nlohmann::json per_step = nlohmann::json::object();
  uint64_t errors = 0;
  std::string idle;  // the steps that did no operation
  for (size_t k = 0; k < steps.size() && k < total.size(); ++k) {
    const std::string n(md_step_info(steps[k]).name);
    const MdTally& t = total[k];
    const double seconds = static_cast<double>(t.ns) * 1e-9;
    uint64_t step_errors = 0;
    for (const auto& [name, count] : t.errors) step_errors += count;
    errors += step_errors;
    m[n + "_ops"] = static_cast<double>(t.ops);
    m[n + "_seconds"] = seconds;
    // A step that did nothing measured no rate and no latency: left out, never "0 s" a check could pass.
    if (t.ops == 0) idle += (idle.empty() ? "" : ", ") + n;
    if (t.ops > 0 && seconds > 0) m[n + "_ops_per_s"] = static_cast<double>(t.ops) / seconds;
    if (t.ops > 0) put_latency_metrics(t.latency, n + "_latency_", LatencyMetrics::kShort, &m);
    m[n + "_errors"] = static_cast<double>(step_errors);
    if (t.stonewall.ran) put_stonewall_results(p, t.stonewall, result);
    per_step[n] = {{"ops", t.ops},
                   {"seconds", seconds},
                   {"errors", t.errors},
                   {"first_error", t.first_error},
                   {"latency", t.latency.to_json()}};
  }
  if (!idle.empty()) {
    result->warnings.push_back(
        idle + ": no operations (" +
        (made == 0 ? "no file was made: a stonewall shorter than the first create?" : "nothing to do") +
        "), so their rates and latencies were not measured and are left out; a check on one fails with "
        "no value");
  }
  m["files"] = static_cast<double>(made * static_cast<uint64_t>(plan.ranks()));
  m["errors"] = static_cast<double>(errors);
  result->details["steps"] = per_step;
  result->details["tree"] = {{"shared_folder", p.shared_folder},
                             {"leaf_folders", plan.leaves().size()},
                             {"folders_per_tree", plan.folders_made_by(0)},
                             {"trees", p.shared_folder ? 1 : plan.ranks()},
                             {"files_per_leaf_max", plan.files_in_leaf(0)}};
  // From the plan, whatever made a rank read its own files: stride 0, one rank, a stride of a multiple of
  // the rank count (2 on 2 ranks).
  if (const double own = plan.own_files_fraction(); own > 0) {
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.0f%%", own * 100);
    result->warnings.push_back(
        std::string(pct) +
        " of the stat, open and read operations worked on files the same rank made (stride " +
        std::to_string(p.stride) + " on " + std::to_string(plan.ranks()) + " rank" +
        (plan.ranks() == 1 ? "" : "s") +
        "): the client's cache could answer them without the storage; with ranks on several hosts set "
        "stride (as mdtest's -N) to a value that is not a multiple of the rank count, so each rank works on "
        "another host's files");
  }
}

void put_object_store_skips(const std::vector<MdStep>& asked, PhaseResult* result) {
  nlohmann::json skipped = nlohmann::json::object();
  std::string names;
  for (MdStep s : asked) {
    const MdStepInfo& i = md_step_info(s);
    if (i.object_store_skip.empty()) continue;
    skipped[std::string(i.name)] = std::string(i.object_store_skip);
    names += (names.empty() ? "" : ", ") + std::string(i.name);
  }
  if (names.empty()) return;
  result->details["skipped_on_object_store"] = skipped;
  result->warnings.push_back(
      "skipped on an object store: " + names +
      " (details.skipped_on_object_store says why for each); create is a PUT, stat a HEAD, "
      "read a GET, list a LIST of the prefix, remove a DELETE");
}

void put_nfs_op_counts(const NfsOpCounts& before, const NfsOpCounts& after, PhaseResult* result) {
  nlohmann::json ops = nlohmann::json::object();
  for (const auto& [op, n] : after) {
    const auto b = before.find(op);
    const uint64_t sent = n - (b == before.end() || b->second > n ? 0 : b->second);
    if (sent > 0) ops[op] = sent;
  }
  result->details["nfs_ops"] = ops;
}

}  // namespace iofab
