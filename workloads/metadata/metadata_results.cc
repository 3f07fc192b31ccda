#include "workloads/metadata/metadata_results.h"

#include <algorithm>

namespace iofab {

std::vector<MetricInfo> metadata_metric_table() {
  std::vector<MetricInfo> rows;
  // The rates first: the console's headline is the first four of the table (create, stat, open, read).
  for (const MdStepInfo& s : md_steps()) {
    const std::string n(s.name), what(s.what);
    rows.push_back({n + "_ops_per_s", Unit::kOpsPerSecond, Better::kHigher,
                    n + ": every rank's operations / the slowest rank's time (one op: " + what + ")"});
  }
  std::rotate(rows.begin(), rows.begin() + 1, rows.end());  // mkdir's rate after the files' ones
  rows.push_back({"files", Unit::kCount, Better::kNeither, "files the phase made, every rank"});
  rows.push_back({"errors", Unit::kCount, Better::kLower, "failed operations, every step"});
  for (const MdStepInfo& s : md_steps()) {
    const std::string n(s.name);
    rows.push_back({n + "_ops", Unit::kCount, Better::kNeither, n + ": operations done, every rank"});
    rows.push_back({n + "_seconds", Unit::kSeconds, Better::kLower, n + ": the slowest rank's time"});
    rows.push_back({n + "_latency_p50_s", Unit::kSeconds, Better::kLower, n + ": latency per operation, median"});
    rows.push_back({n + "_latency_p99_s", Unit::kSeconds, Better::kLower, n + ": latency, 99th percentile"});
    rows.push_back({n + "_latency_max_s", Unit::kSeconds, Better::kLower, n + ": latency, max"});
    rows.push_back({n + "_errors", Unit::kCount, Better::kLower, n + ": failed operations"});
  }
  return rows;
}

void put_metadata_results(const MetadataParams& p, const MetadataPlan& plan, const std::vector<MdStep>& steps,
                          const std::vector<MdTally>& total, PhaseResult* result) {
  auto& m = result->metrics;
  nlohmann::json per_step = nlohmann::json::object();
  uint64_t errors = 0;
  for (size_t k = 0; k < steps.size() && k < total.size(); ++k) {
    const std::string n(md_step_info(steps[k]).name);
    const MdTally& t = total[k];
    const double seconds = static_cast<double>(t.ns) * 1e-9;
    uint64_t step_errors = 0;
    for (const auto& [name, count] : t.errors) step_errors += count;
    errors += step_errors;
    m[n + "_ops"] = static_cast<double>(t.ops);
    m[n + "_seconds"] = seconds;
    if (seconds > 0) m[n + "_ops_per_s"] = static_cast<double>(t.ops) / seconds;
    m[n + "_latency_p50_s"] = static_cast<double>(t.latency.percentile(0.50)) * 1e-9;
    m[n + "_latency_p99_s"] = static_cast<double>(t.latency.percentile(0.99)) * 1e-9;
    m[n + "_latency_max_s"] = static_cast<double>(t.latency.max()) * 1e-9;
    m[n + "_errors"] = static_cast<double>(step_errors);
    per_step[n] = {{"ops", t.ops},
                   {"seconds", seconds},
                   {"errors", t.errors},
                   {"first_error", t.first_error},
                   {"latency", t.latency.to_json()}};
  }
  m["files"] = static_cast<double>(p.files_per_rank * static_cast<uint64_t>(plan.ranks()));
  m["errors"] = static_cast<double>(errors);
  result->details["steps"] = per_step;
  result->details["tree"] = {{"shared_folder", p.shared_folder},
                             {"leaf_folders", plan.leaves().size()},
                             {"folders_per_tree", plan.folders_made_by(0)},
                             {"trees", p.shared_folder ? 1 : plan.ranks()},
                             {"files_per_leaf_max", plan.files_in_leaf(0)}};
  const bool cached_reads = std::any_of(steps.begin(), steps.end(), [](MdStep s) {
    return s == MdStep::kStat || s == MdStep::kOpen || s == MdStep::kRead;
  });
  if (cached_reads && (p.stride == 0 || plan.ranks() == 1)) {
    result->warnings.push_back(
        "stat, open and read worked on files this rank made: the client's cache could answer them without the "
        "storage; with ranks on several hosts set stride (as mdtest's -N) so each rank works on another host's "
        "files");
  }
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
