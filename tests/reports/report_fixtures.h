// Crafted report documents for the reports tests: the shape `iofab run`
// writes (docs/report-reference.md), small, with just the fields a test
// needs; helpers add repeated-run statistics and details.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/repeat_stats.h"

namespace iofab::testing {

inline constexpr const char* kSuiteSha = "5f0c6a4e0d7b9d8e3a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071";

// A phase object with metrics, units/better/headline details as the runner writes them.
inline nlohmann::json make_phase(const std::string& name, const std::string& kind,
                                 const nlohmann::json& metrics, bool with_better = true) {
  nlohmann::json units = nlohmann::json::object(), better = nlohmann::json::object();
  for (const auto& [k, v] : metrics.items()) {
    const bool rate = k.find("bytes_per_s") != std::string::npos || k.rfind("busbw.", 0) == 0;
    const bool secs = !rate && (k.size() > 2 && (k.ends_with("_s") || k.ends_with("_seconds")));
    units[k] = rate ? "bytes/s" : secs ? "s" : k.ends_with("_bytes") ? "bytes" : "count";
    better[k] = rate ? "higher" : secs ? "lower" : "neither";
  }
  units["busbw.*"] = "bytes/s";
  better["busbw.*"] = "higher";
  nlohmann::json details = {{"units", units}, {"headline", nlohmann::json::array()}};
  if (with_better) details["better"] = better;
  return {{"name", name},
          {"kind", kind},
          {"status", "passed"},
          {"reason", ""},
          {"seconds", 1.5},
          {"params", {{"block_size", 1048576}, {"engine", "psync"}}},
          {"result", {{"metrics", metrics}, {"details", details}}},
          {"warnings", nlohmann::json::array()},
          {"checks", nlohmann::json::array()}};
}

inline nlohmann::json make_report(const nlohmann::json& phases, const std::string& sha = kSuiteSha,
                                  int schema_version = 1, const std::string& hostname = "node1") {
  return {{"schema_version", schema_version},
          {"tool", {{"name", "iofab"}, {"version", "0.1.0"}, {"git_sha", "abc123"}, {"backends", "uring"}}},
          {"run",
           {{"id", "20240501-120000-ab12"},
            {"start_time", "2024-05-01T12:00:00Z"},
            {"duration_s", 12.5},
            {"suite", {{"name", "nightly"}, {"sha256", sha}, {"sets", nlohmann::json::array()}}}}},
          {"cluster",
           {{"ranks", 1},
            {"comm", "self"},
            {"hosts", nlohmann::json::array({{{"hostname", hostname},
                                              {"cpus", 16},
                                              {"memory_bytes", 68719476736LL},
                                              {"kernel", "Linux 6.1.0"},
                                              {"cuda_devices", nlohmann::json::array()},
                                              {"rdma_devices", nlohmann::json::array()},
                                              {"ranks", 1}}})}}},
          {"target", {{"path", "/mnt/scratch"}, {"fs_type", "ext4"}, {"device", "/dev/nvme0n1p1"}}},
          {"phases", phases},
          {"warnings", nlohmann::json::array()},
          {"verdict", {{"status", "passed"}, {"reasons", nlohmann::json::array()}}}};
}

// Sets metric to the mean of values and records the spread as `iofab run --repeat` does.
inline void set_repeated(nlohmann::json* phase, const std::string& metric,
                         const std::vector<double>& values) {
  const MetricStats s = compute_stats(values);
  (*phase)["result"]["metrics"][metric] = s.mean;
  auto& rep = (*phase)["result"]["details"]["repeat"];
  rep["runs"] = values.size();
  rep["stats"][metric] = stats_to_json(s);
}

inline nlohmann::json add_check(nlohmann::json* phase, const std::string& name, const std::string& metric,
                                const std::string& op, double threshold, const nlohmann::json& value,
                                bool passed) {
  nlohmann::json c = {{"name", name},         {"metric", metric}, {"op", op},        {"threshold", threshold},
                      {"threshold_text", ""}, {"value", value},   {"passed", passed}};
  (*phase)["checks"].push_back(c);
  return c;
}

}  // namespace iofab::testing
