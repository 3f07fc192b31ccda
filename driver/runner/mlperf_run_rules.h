// MLPerf Storage's run rules that a repeated run shows (mlcommons/storage Rules.md,
// commit 0366ccfc9fc629dde3379a8022cb4c4ff8285b53), checked on `iofab run --repeat` of an mlperf-* suite:
//  - runTimestamps (2.1.17): one warm-up run, then five measured runs;
//  - runTimestampGap (2.1.18): each gap between two neighbouring runs shorter than the run before it;
//  - trainingMlpstorageFilesystemCheck / checkpointFilesystemCheck (3.4.2, 4.4.2): the logs (the
//    report) on another filesystem than the data (the target);
//  - checkpointCacheFlushValidation (4.7.1): the read-back of a checkpoint starts at most 30 s after
//    its writes end.
// Each lands in run.repeat.mlperf_rules; one that fails fails the verdict, as the submission checker
// would reject the run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/results/report.h"

namespace iofab {

// One run of the series, in seconds of one steady clock.
struct RunSpan {
  double start_s = 0;
  double end_s = 0;
};

struct MlperfRunRule {
  std::string name;     // the rule's name in Rules.md
  std::string section;  // "2.1.18"
  std::string text;     // what it asks, in words
  bool passed = false;
  double measured = 0;
  double limit = 0;
};

// What the series showed. runs: every run, the warm-up first when there was one; write_read_gaps_s:
// per run, the longest time from a checkpoint phase's end to the start of the restore after it (none:
// the suite reads no checkpoint back); logs_apart: whether the report and the target are on different
// filesystems (nullopt: unknown).
struct RepeatSeries {
  std::vector<RunSpan> runs;
  bool warmup = false;
  std::vector<double> write_read_gaps_s;
  std::optional<bool> logs_apart;
};

std::vector<MlperfRunRule> mlperf_run_rules(const RepeatSeries& s);

// Per run: the longest time from a checkpoint phase's end to the first timed read of the restore phase
// after it (the phases between them and the restore's setup), 0 when none follows one.
double write_read_gap_seconds(const Report& run);

// Whether the folder of report_path and target_path are on different filesystems (st_dev); nullopt
// when either cannot be examined.
std::optional<bool> on_different_filesystems(const std::string& report_path, const std::string& target_path);

// Whether the suite is one of MLPerf Storage's (its name starts with "mlperf-").
bool is_mlperf_suite(const Report& report);

// rules into report->run["repeat"]["mlperf_rules"]; a failed one fails the verdict with its reason.
void apply_mlperf_run_rules(const std::vector<MlperfRunRule>& rules, Report* report);

}  // namespace iofab
