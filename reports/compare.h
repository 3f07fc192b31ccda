// compare: a current report against a baseline, metric by metric, for CI
// regression gates. Phases and metrics are matched by name; each metric's
// direction comes from the report (details.better) or its name; a metric
// regresses when it moved the bad way by more than the tolerance AND, where
// the reports hold repeated runs, by more than the runs' own noise:
//
//   d     = current - baseline   (means where repeated)
//   bad   = -d if higher is better, +d if lower is better
//   tol   = tolerance x |baseline|
//   noise = 2 x sqrt(s_b^2 / n_b + s_c^2 / n_c)   (Welch: two standard errors
//           of the difference of the means; a side with a single run is
//           taken to scatter like the repeated side; 0 when neither repeats)
//   regressed      when bad > max(tol, noise)
//   within noise   when tol < bad <= noise
//   improved       when -bad > max(tol, noise)
//   unchanged      otherwise
//
// Only phases that ran to a verdict (passed or failed) are compared. A phase
// interrupted, in error, or skipped on one side only (in either report) makes
// the compare fail, naming the phase and its status, and its figures are
// marked unusable, never improved: partial figures of a cut-short run are not
// a measurement. A phase skipped in both reports (collectives on one rank)
// measured nothing on either side and is only noted.
//
// docs/reports.md explains the rule with examples.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "reports/report_reader.h"

namespace iofab {

struct CompareOptions {
  double tolerance = 0.05;                // fraction of the baseline value
  std::vector<std::string> metric_globs;  // fnmatch on "metric" or "phase/metric"; empty: all
  bool force = false;                     // compare different schema versions or suites anyway
};

enum class MetricVerdict {
  kImproved,
  kUnchanged,
  kWithinNoise,  // beyond the tolerance the bad way, but inside the runs' spread
  kRegressed,
  kNeutral,  // no good direction (sizes, counts of configuration): shown, never fails
  kMissing,  // in the baseline, not in the current report: fails
  kNew,      // in the current report only: shown, never fails
  kUnusable,  // the phase did not run to a verdict on one side (interrupted, error, skipped): fails
};
const char* metric_verdict_text(MetricVerdict v);
bool verdict_fails(MetricVerdict v);

struct MetricComparison {
  std::string phase;
  std::string metric;
  std::string unit;                // "bytes/s", "s", ...
  std::string better;              // "higher" | "lower" | "neither"
  std::optional<double> baseline;  // mean when repeated
  std::optional<double> current;
  size_t baseline_runs = 1;
  size_t current_runs = 1;
  double baseline_stdev = 0;
  double current_stdev = 0;
  double change = 0;         // (current - baseline) / |baseline|; inf when baseline is 0
  double tolerance_abs = 0;  // tolerance x |baseline|
  double noise = 0;          // the noise band, in the metric's unit; 0 without repeats
  MetricVerdict verdict = MetricVerdict::kUnchanged;
  std::string reason;  // one line a person reads
};

struct Comparison {
  std::string baseline_source;
  std::string current_source;
  double tolerance = 0.05;
  std::vector<MetricComparison> metrics;  // baseline's phase order, then phases only in current
  std::vector<std::string> phases_only_in_baseline;
  std::vector<std::string> phases_only_in_current;
  std::vector<std::string> notes;  // e.g. what --force let through
  // "current: phase ingest interrupted: ...": phases that did not run to a verdict; each fails the compare.
  std::vector<std::string> unusable_phases;
  // The current report's run.start_time and first host, as its figures' time and place (JUnit's testsuite
  // timestamp and hostname); "" where it has none.
  std::string current_start_time;
  std::string current_hostname;
  size_t count(MetricVerdict v) const;
  bool failed() const;  // any regressed, missing or unusable metric, or any unusable phase
};

// Invalid (exit 2) when the reports cannot be compared: different schema
// versions, or different suites (run.suite.sha256 or run.suite.sets), unless
// opts.force; the message says what differs.
Status compare_reports(const LoadedReport& baseline, const LoadedReport& current, const CompareOptions& opts,
                       Comparison* out);

// Parses "5%" or "0.05" (a fraction in [0, 1]; more than 100% only with '%').
std::optional<double> parse_tolerance(const std::string& text);

}  // namespace iofab
