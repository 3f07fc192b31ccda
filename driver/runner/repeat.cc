#include "driver/runner/repeat.h"

#include <vector>

#include "driver/runner/signals.h"
#include "reports/repeat_stats.h"

namespace iofab {

Status run_suite_repeated(Comm& comm, const RunOptions& opts, const RepeatOptions& repeat, Report* report,
                          std::ostream* log) {
  if (repeat.runs < 1) return Status::Invalid("--repeat: expected a number of runs >= 1");
  const int total = repeat.runs + (repeat.warmup ? 1 : 0);
  std::vector<Report> runs;
  Report warmup;
  bool have_warmup = false;
  for (int k = 0; k < total; ++k) {
    const bool is_warmup = repeat.warmup && k == 0;
    const int index = repeat.warmup ? k : k + 1;
    if (log != nullptr && comm.rank() == 0) {
      *log << "iofab: "
           << (is_warmup ? std::string("warm-up run (figures dropped)")
                         : "run " + std::to_string(index) + " of " + std::to_string(repeat.runs))
           << "\n";
      log->flush();
    }
    Report r;
    Status st = run_suite(comm, opts, &r);
    if (!st.ok()) return st;  // the same on every rank
    // One rank holds the report (0, or the lowest survivor of a lost rank): it decides whether
    // to go on, so every rank runs the same loop.
    const bool holder = comm.rank() == comm.report_rank();
    std::string go = "stop";
    if (holder) {
      go = r.verdict == "interrupted" || stop_flag().load() ? "stop" : "go";
      if (is_warmup) {
        warmup = std::move(r);
        have_warmup = true;
      } else {
        runs.push_back(std::move(r));
      }
    }
    // A lost rank ends the series: the runs so far are folded, the failed one included.
    if (comm.failed()) break;
    if (Status b = comm.broadcast(&go, 0); !b.ok()) return b;
    if (go != "go") break;
  }
  if (comm.rank() != comm.report_rank()) return Status::Ok();
  if (runs.empty()) {
    // Interrupted during the warm-up: its report says so; there is nothing to fold.
    *report = std::move(warmup);
    report->run["repeat"] = {{"count", repeat.runs}, {"completed", 0}, {"interrupted_in", "warm-up"}};
    return Status::Ok();
  }
  *report = aggregate_repeats(runs, have_warmup ? &warmup : nullptr, repeat.runs);
  return Status::Ok();
}

}  // namespace iofab
