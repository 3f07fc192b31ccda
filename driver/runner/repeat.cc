#include "driver/runner/repeat.h"

#include <chrono>
#include <vector>

#include "driver/runner/mlperf_run_rules.h"
#include "driver/runner/signals.h"
#include "reports/repeat_stats.h"
#include "workloads/phase_table.h"

namespace iofab {

namespace {
// A phase that reads back what an earlier one wrote (a restore): MLPerf's write-to-read gap applies.
bool has_read_back(const Report& r) {
  for (const PhaseReport& p : r.phases) {
    if (read_back_link(p.kind) != nullptr) return true;
  }
  return false;
}
}  // namespace

Status run_suite_repeated(Comm& comm, const RunOptions& opts, const RepeatOptions& repeat, Report* report,
                          std::ostream* log) {
  if (repeat.runs < 1) return Status::Invalid("--repeat: expected a number of runs >= 1");
  const int total = repeat.runs + (repeat.warmup ? 1 : 0);
  std::vector<Report> runs;
  Report warmup;
  bool have_warmup = false;
  RepeatSeries series;  // rank 0's view: what MLPerf's run rules read
  const auto clock0 = std::chrono::steady_clock::now();
  const auto since = [&clock0] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - clock0).count();
  };
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
    const double start_s = since();
    Status st = run_suite(comm, opts, &r);
    if (!st.ok()) return st;  // the same on every rank
    series.runs.push_back({start_s, since()});
    series.warmup = repeat.warmup;
    if (const double gap = write_read_gap_seconds(r); has_read_back(r))
      series.write_read_gaps_s.push_back(gap);
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
  if (is_mlperf_suite(*report)) {
    const std::string logs = repeat.report_path.empty() ? "./report.json" : repeat.report_path;
    series.logs_apart = on_different_filesystems(logs, report->target.value("path", std::string()));
    apply_mlperf_run_rules(mlperf_run_rules(series), report);
  }
  return Status::Ok();
}

}  // namespace iofab
