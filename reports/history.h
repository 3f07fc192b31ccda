// A series of reports of one suite, for a CI job's history page
// (`iofab report --history reports/*.json -o history.html`): the reports in
// the order they ran (run.start_time, then the file name), each headline
// metric over the series, and what `compare` says of each report against
// the one before it: the noise band it allows (the previous value plus or
// minus the larger of the tolerance and the runs' noise) and the
// regressions it would flag. Plain data; reports/history_page.cc draws it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "reports/compare.h"
#include "reports/report_reader.h"

namespace iofab {

struct HistoryOptions {
  double tolerance = 0.05;  // as `iofab compare --tolerance`
  size_t last = 10;         // rows in the page's table
};

// One report in the series.
struct HistoryRun {
  std::string source;      // the file
  std::string id;          // run.id
  std::string start_time;  // run.start_time
  std::string git_sha;     // tool.git_sha: the commit that built iofab
  std::string verdict;     // passed | failed | error | interrupted
};

// What compare said of one metric of one report against the report before it.
struct HistoryPoint {
  std::optional<double> value;
  std::optional<double> band_low, band_high;  // the values compare lets through; none for the first
  MetricVerdict verdict = MetricVerdict::kUnchanged;
  std::string reason;  // compare's line, for a regression's tooltip and the table
};

struct HistoryMetric {
  std::string phase;
  std::string metric;
  std::string unit;
  std::string better;
  std::vector<HistoryPoint> points;  // one per run, in series order
};

struct History {
  std::string suite;
  double tolerance = 0.05;
  size_t last = 10;
  std::vector<HistoryRun> runs;        // oldest first
  std::vector<HistoryMetric> metrics;  // each phase's headline metrics, phases in suite order
  std::vector<std::string> notes;      // what compare noted (suites edited along the series, ...)
  size_t regressions() const;
};

// Invalid (exit 2) for fewer than 2 reports or reports of different suites (run.suite.name), naming the
// files; otherwise the series ordered as above.
Status build_history(std::vector<LoadedReport> reports, const HistoryOptions& opts, History* out);

}  // namespace iofab
