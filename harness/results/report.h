// Report: the plain value every output format reads. Measuring code never
// formats; writers never measure. The JSON form (json_report) is canonical:
// compare and report read it back, so they work on reports from elsewhere.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/status.h"
#include "harness/results/verification.h"

namespace iofab {

inline constexpr int kSchemaVersion = 1;

enum class PhaseStatus { kPassed, kFailed, kSkipped, kError, kInterrupted };
const char* phase_status_text(PhaseStatus s);

struct CheckResult {
  std::string name;
  std::string metric;
  std::string op;
  double threshold = 0;
  std::string threshold_text;
  double value = 0;
  bool has_value = false;  // false: the metric was not produced (phase failed or skipped)
  bool passed = false;
};

struct PhaseReport {
  std::string name;
  std::string kind;
  PhaseStatus status = PhaseStatus::kPassed;
  std::string reason;
  nlohmann::json params = nlohmann::json::object();
  nlohmann::json metrics = nlohmann::json::object();
  nlohmann::json details = nlohmann::json::object();
  std::vector<std::string> warnings;
  std::vector<CheckResult> checks;
  double seconds = 0;  // wall time of the phase, setup included
  // Of seconds, the untimed setup before what the phase measured, the slowest rank's (PhaseResult); absent
  // for a phase with no timed window, one that did not run, and in reports older than the field.
  std::optional<double> setup_seconds;
  // Whether the figure is proved to be the storage's; absent for a phase that moves no bytes through the
  // target (collectives, rdma), one that did not run, and in reports older than the field.
  std::optional<Verification> verification;
};

struct Report {
  nlohmann::json tool = nlohmann::json::object();
  nlohmann::json run = nlohmann::json::object();
  nlohmann::json cluster = nlohmann::json::object();
  nlohmann::json target = nlohmann::json::object();
  std::vector<PhaseReport> phases;
  std::string verdict = "passed";  // passed | failed | error | interrupted
  std::vector<std::string> verdict_reasons;
  std::vector<std::string> warnings;
};

// Derives each phase's status from its checks and the verdict from phases.
void finalize_verdict(Report* report);
// 0 passed, 1 a check failed, 3 a runtime error, 130 interrupted.
int exit_code_for(const Report& report);

}  // namespace iofab
