// `iofab run --repeat N`: the suite run N times (after one warm-up run whose
// figures are dropped, unless warmup is false), folded into one report whose
// metrics are the means, with each metric's spread and every run recorded
// (reports/repeat_stats.h); an mlperf-* suite's series is also held to MLPerf Storage's run rules
// (mlperf_run_rules.h). Every rank runs the same loop; rank 0 decides
// after each run whether to go on (not after an interruption) and tells the others.
#pragma once

#include <ostream>
#include <string>

#include "harness/comm/comm.h"
#include "harness/core/status.h"
#include "harness/results/report.h"
#include "driver/runner/runner.h"

namespace iofab {

struct RepeatOptions {
  int runs = 1;        // measured runs, >= 1
  bool warmup = true;  // one run first whose figures are dropped (caches, allocation, fabric set-up)
  // Where the report goes (--out): an mlperf-* suite's run rules want it on another filesystem than the
  // target (mlperf_run_rules.h). Empty: the working folder.
  std::string report_path;
};

// As run_suite: Invalid when the suite or target is bad (nothing was
// written); otherwise *report (on rank 0) holds the folded runs. log, when
// given, gets a line per run on rank 0.
Status run_suite_repeated(Comm& comm, const RunOptions& opts, const RepeatOptions& repeat, Report* report,
                          std::ostream* log);

}  // namespace iofab
