// A CI job's series of reports for the history tests: ten nightly runs of one suite, a day apart, noisy
// by a few percent, with ingest's bandwidth 30% down on the seventh (the one regression compare flags).
#pragma once

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/html_fixture.h"

namespace iofab::testing {

inline constexpr size_t kHistoryRuns = 10;
inline constexpr size_t kHistoryRegressedRun = 7;  // 1-based, as the page numbers them

// Run k (1-based) of the series.
inline nlohmann::json history_report(size_t k) {
  // +-2% around 1.0, and the regression.
  const double wobble = 1.0 + 0.02 * std::sin(static_cast<double>(k) * 1.7);
  const double speed = k == kHistoryRegressedRun ? 0.7 * wobble : wobble;
  nlohmann::json doc = full_report("node-a", speed);
  char day[32];
  std::snprintf(day, sizeof day, "2026-11-%02zuT02:00:00Z", k);
  doc["run"]["start_time"] = day;
  doc["run"]["id"] = "nightly-" + std::to_string(k);
  doc["tool"]["git_sha"] = "c0ffee" + std::to_string(1000 + k);
  // The training phase's figures are headline figures too, and steady.
  doc["phases"][1]["result"]["metrics"]["read_bytes_per_s"] = 2e9 * wobble;
  doc["phases"][1]["result"]["metrics"]["samples_per_s"] = 15000 * wobble;
  doc["phases"][1]["result"]["details"]["headline"] = {"read_bytes_per_s", "samples_per_s"};
  return doc;
}

}  // namespace iofab::testing
