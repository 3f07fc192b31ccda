// Repeated runs (`iofab run --repeat N`): statistics per metric across the
// runs, and the one report they fold into. Pure functions over Report
// values; running the suite N times is the runner's (driver/runner/repeat.h).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/results/report.h"

namespace iofab {

struct MetricStats {
  size_t n = 0;
  double mean = 0;
  double stdev = 0;  // sample standard deviation (n - 1); 0 for a single value
  double cv = 0;     // coefficient of variation: stdev / |mean|; 0 when the mean is 0
  double min = 0;
  double max = 0;
  std::vector<double> values;  // in run order
};

MetricStats compute_stats(const std::vector<double>& values);
// {"mean", "stdev", "cv", "n", "min", "max", "values"}
nlohmann::json stats_to_json(const MetricStats& s);
// The spread a repeated report recorded for metric (details.repeat.stats);
// nullopt when the phase was not repeated or has no stats for it.
std::optional<MetricStats> repeat_stats_of(const PhaseReport& phase, const std::string& metric);

// Folds measured runs of one suite (in order; at least one) into one report:
//  - each phase's metrics are the means over the runs that produced them, with
//    details.repeat = {"runs", "stats": {metric: stats}}; the other details
//    (histograms, series) are the last run's;
//  - a phase is error (or interrupted) if it was in any run, skipped if in all;
//  - checks are evaluated again on the means and the verdict derived again;
//  - run is the first run's, with duration_s over all runs and run.repeat =
//    {"count": requested, "completed", "warmup": {id, start_time, duration_s, verdict} | null,
//     "runs": [{index, id, start_time, duration_s, verdict, phases: [{name, status, reason,
//               metrics, checks: [{name, value, passed}]}]}]}.
// warmup: the warm-up run, or nullptr when there was none.
Report aggregate_repeats(const std::vector<Report>& runs, const Report* warmup, int requested);

}  // namespace iofab
