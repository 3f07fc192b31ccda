// The runner: validates the suite and the target, checks free space, makes
// the run folder, runs the phases in order on every rank (each after a
// barrier), gathers results to rank 0, evaluates checks, removes its files
// and fills the Report. Writing the report is the caller's (rank 0's) job.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/comm/comm.h"
#include "harness/core/status.h"
#include "harness/results/report.h"
#include "driver/runner/live_options.h"
#include "driver/targets/run_target.h"

namespace iofab {

struct RunOptions {
  std::string suite = "default";      // a path or a built-in suite name
  std::optional<std::string> target;  // overrides the suite's target
  std::vector<std::string> sets;      // --set PATH=VALUE
  bool keep = false;                  // leave the run folder
  bool quiet = false;                 // no live progress line
  LiveOptions live;                   // --progress-every, --live, --live-interval, --live-openmetrics
  bool no_preflight = false;          // tests only: skip the free-space check
  std::string command_line;
  std::string comm_reason;      // why this Comm was chosen, for the report
  double rank_timeout_s = 600;  // a rank silent this long counts as lost
  // Options of the command that every rank must share, by name, as a person reads them ("--scale", "4"):
  // the runner compares them across ranks (with the suite, target and the options above) before anything
  // is made (same_run.h).
  std::vector<std::pair<std::string, std::string>> agreed;
  // Called on rank 0 with the finished report before the run folder is removed,
  // so the report is on disk even if the process is killed during cleanup.
  std::function<void(const Report&)> on_report_ready;
  // Called on the report's writer as each phase starts and ends with the report
  // as it would stand if this process died then (the running phase cut short,
  // this host only), for a helper process to write in its place (ReportCourier).
  std::function<void(const Report&)> on_fallback_report;
  // The kinds of target the run knows; null: the table iofab is built with (tests add a fake kind).
  const std::vector<RunTargetKind>* target_kinds = nullptr;
};

inline constexpr const char* kDefaultTarget = "./iofab-data";

// Invalid: bad suite, target or preflight (nothing was written; exit 2).
// Otherwise the run happened (possibly interrupted or failed) and *report
// holds it on rank 0.
Status run_suite(Comm& comm, const RunOptions& opts, Report* report);

}  // namespace iofab
