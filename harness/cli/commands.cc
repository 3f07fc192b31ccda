#include "harness/cli/commands.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "harness/cli/output_paths.h"
#include "harness/core/build_info.h"
#include "harness/core/json_text.h"
#include "harness/core/units.h"
#include "harness/engines/engine.h"
#include "harness/fs/atomic_file.h"
#include "harness/fs/target.h"
#include "harness/gpu/devices.h"
#include "harness/runner/repeat.h"
#include "harness/suite/suite.h"
#include "reports/console_report.h"
#include "reports/json_report.h"
#include "reports/junit_report.h"
#include "reports/openmetrics_report.h"
#include "reports/repeat_console.h"

namespace iofab {

using nlohmann::json;

namespace {
constexpr double kMinRankTimeoutSeconds = 1;
constexpr double kMaxRankTimeoutSeconds = 7 * 24 * 3600;
}  // namespace

int cmd_run(Comm& comm, RunArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.target.empty()) args.options.target = args.target;
  if (args.scale > 0) {
    char text[64];
    std::snprintf(text, sizeof text, "checkpoint_scale=%.17g", args.scale);
    args.options.sets.emplace_back(text);
  }
  if (!args.rank_timeout.empty()) {
    // Below a second, a healthy rank that is merely busy (a loaded machine, the control plane's polling)
    // would count as lost; above a week, it is no timeout at all.
    auto t = units::parse_duration(args.rank_timeout);
    if (!t || *t < kMinRankTimeoutSeconds || *t > kMaxRankTimeoutSeconds) {
      if (comm.rank() == 0) {
        err << "iofab: --rank-timeout: expected a duration from 1s to 7 days like \"90s\" or \"10min\", got \""
            << args.rank_timeout << "\"\n";
      }
      return 2;
    }
    args.options.rank_timeout_s = *t;
  }
  // The outputs, before the suite runs: a report that could not be written, or one written over the suite
  // file, would lose the run at its end. Rank 0 checks (the writer's view of the paths); every rank learns
  // the verdict, so all exit 2 together.
  {
    std::string refused;
    if (comm.rank() == 0) {
      Status o =
          check_outputs({{"suite", args.options.suite}},
                        {{"--out", args.out}, {"--junit", args.junit}, {"--openmetrics", args.openmetrics}});
      if (!o.ok()) refused = o.message();
    }
    if (Status b = comm.broadcast(&refused, 0); !b.ok()) {
      err << "iofab: " << b.message() << "\n";
      return 3;
    }
    if (!refused.empty()) {
      if (comm.rank() == 0) err << "iofab: " << refused << "\n";
      return 2;
    }
  }
  auto report_path = [&](const Report& r) {
    return args.out.empty() ? "iofab-report-" + r.run.value("id", std::string("run")) + ".json" : args.out;
  };
  auto write_report = [&](const Report& r) {
    const std::string text = render_json_report(r);
    return args.courier != nullptr ? args.courier->deliver(report_path(r), text)
                                   : write_file_atomic(report_path(r), text);
  };
  // A first copy before cleanup: if the process is killed while removing files, the report is there.
  // Under a launcher, which kills the ranks a second after its stop signal, the courier also takes
  // over the cleanup should this rank go before it is done.
  if (args.repeat == 0) {
    args.options.on_report_ready = [&](const Report& r) {
      // The courier removes a local run folder; an s3:// run's keys are the writer's to delete.
      const bool local = !r.target.value("run_folder", std::string()).starts_with("s3://");
      if (args.courier != nullptr && local && !r.target.value("kept", false)) {
        (void)args.courier->remove_if_gone(r.target.value("run_folder", std::string()));
      }
      if (Status w = write_report(r); !w.ok()) err << "iofab: cannot write the report: " << w.message() << "\n";
    };
    if (args.courier != nullptr) {
      // Should this rank be killed before the report above is handed over, the courier writes this one.
      args.options.on_fallback_report = [&](const Report& r) {
        if (!r.target.value("kept", false) && !r.target.value("run_folder", std::string()).starts_with("s3://")) {
          (void)args.courier->remove_if_gone(r.target.value("run_folder", std::string()));
        }
        (void)args.courier->leave_fallback(report_path(r), render_json_report(r));
      };
    }
  }
  Report report;
  Status st = args.repeat > 0 ? run_suite_repeated(comm, args.options, RepeatOptions{args.repeat, !args.no_warmup},
                                                    &report, args.options.quiet ? nullptr : &err)
                              : run_suite(comm, args.options, &report);
  if (!st.ok()) {
    if (comm.rank() == 0) err << "iofab: " << st.message() << "\n";
    return st.code() == Status::Code::kInvalidArgument ? 2 : 3;
  }
  if (comm.rank() != comm.report_rank()) {
    // After a loss, leaving ends the job under mpirun: wait until the writer says the report is durable.
    if (comm.failed()) {
      if (Status a = comm.await_release(comm.report_rank()); !a.ok()) {
        err << "iofab: rank " << comm.rank() << " leaves without the writer's word: " << a.message() << "\n";
      }
    }
    return 0;
  }
  // The run folder is removed (or kept): the courier has no cleanup left to take over.
  if (args.courier != nullptr) (void)args.courier->cancel_removal();
  // The writer is the last to leave after a loss: the others wait for its word, given on every way out.
  struct ReleaseOnExit {
    Comm& comm;
    ~ReleaseOnExit() {
      // On the way out: a rank that cannot be released is lost already, and the others stop waiting
      // for it at --rank-timeout.
      if (comm.failed()) comm.release_survivors().ignore_error();
    }
  } release{comm};
  const std::string path = report_path(report);
  Status w = write_report(report);
  if (!args.options.quiet) write_console_summary(report, out);
  if (!args.options.quiet && args.repeat > 0) write_repeat_summary(report, out);
  if (!w.ok()) {
    err << "iofab: cannot write the report: " << w.message() << "\n";
    return 3;
  }
  if (!args.junit.empty()) {
    if (Status j = write_file_atomic(args.junit, junit_for_run(report)); !j.ok()) {
      err << "iofab: cannot write the JUnit file: " << j.message() << "\n";
      return 3;
    }
  }
  if (!args.openmetrics.empty()) {
    if (Status m = write_file_atomic(args.openmetrics, openmetrics_for_run(report)); !m.ok()) {
      err << "iofab: cannot write the OpenMetrics file: " << m.message() << "\n";
      return 3;
    }
  }
  std::error_code ec;
  auto abs = std::filesystem::absolute(path, ec);
  out << "report: " << (ec ? path : abs.string()) << "\n";
  return exit_code_for(report);
}

int cmd_validate(const std::string& suite_path, const std::vector<std::string>& sets, std::ostream& out,
                 std::ostream& err) {
  Suite suite;
  Status st = load_suite(suite_path, sets, &suite);
  if (!st.ok()) {
    err << "iofab: " << st.message() << "\n";
    return 2;
  }
  json phases = json::array();
  for (const auto& p : suite.phases) {
    json checks = json::array();
    for (const auto& c : p.checks) {
      checks.push_back({{"name", c.name}, {"metric", c.metric}, {"op", check_op_text(c.op)}, {"threshold", c.threshold}});
    }
    json entry = {{"name", p.name}, {"kind", p.kind->name}, {"params", p.params}, {"checks", checks}};
    if (p.group >= 0) {
      // A member of a concurrent group says which, and whether it is the clock.
      const PhaseGroup& g = suite.groups[static_cast<size_t>(p.group)];
      entry["concurrent"] = {{"group", g.label},
                             {"clock", g.clock >= 0 && suite.phases[static_cast<size_t>(g.clock)].name == p.name},
                             {"solo", g.solo}};
    }
    phases.push_back(std::move(entry));
  }
  json j = {{"suite", suite.source}, {"name", suite.name}, {"sha256", suite.sha256}, {"phases", phases}};
  if (suite.target) j["target"] = *suite.target;
  out << json_text(j, 2) << "\n";
  err << "suite OK: " << suite.phases.size() << " phase" << (suite.phases.size() == 1 ? "" : "s");
  for (const auto& g : suite.groups) err << "; at once: " << g.label;
  err << "\n";
  return 0;
}

}  // namespace iofab
