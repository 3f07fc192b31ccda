#include "harness/cli/commands.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

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
#include "reports/repeat_console.h"
#include "workloads/checkpoint/budget.h"

namespace iofab {

using nlohmann::json;

namespace {
constexpr double kMinRankTimeoutSeconds = 1;
constexpr double kMaxRankTimeoutSeconds = 7 * 24 * 3600;
}  // namespace

int cmd_run(Comm& comm, RunArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.target.empty()) args.options.target = args.target;
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
          check_outputs({{"suite", args.options.suite}}, {{"--out", args.out}, {"--junit", args.junit}});
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
      if (args.courier != nullptr && !r.target.value("kept", false)) {
        (void)args.courier->remove_if_gone(r.target.value("run_folder", std::string()));
      }
      if (Status w = write_report(r); !w.ok()) err << "iofab: cannot write the report: " << w.message() << "\n";
    };
    if (args.courier != nullptr) {
      // Should this rank be killed before the report above is handed over, the courier writes this one.
      args.options.on_fallback_report = [&](const Report& r) {
        if (!r.target.value("kept", false)) {
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
    phases.push_back({{"name", p.name}, {"kind", p.kind->name}, {"params", p.params}, {"checks", checks}});
  }
  json j = {{"suite", suite.source}, {"name", suite.name}, {"sha256", suite.sha256}, {"phases", phases}};
  if (suite.target) j["target"] = *suite.target;
  out << json_text(j, 2) << "\n";
  err << "suite OK: " << suite.phases.size() << " phase" << (suite.phases.size() == 1 ? "" : "s") << "\n";
  return 0;
}

namespace {

// "2.45e12": three significant digits, as DESIGN.md writes its numbers.
std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", v);
  std::string s = buf;
  const auto e = s.find('e');
  if (e == std::string::npos) return s;
  std::string mant = s.substr(0, e);
  std::string exp = s.substr(e + 1);
  bool neg = !exp.empty() && exp[0] == '-';
  if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) exp.erase(0, 1);
  while (exp.size() > 1 && exp[0] == '0') exp.erase(0, 1);
  return mant + "e" + (neg ? "-" : "") + exp;
}

// A bound as a person writes it: 1, 0.001, 1e+15.
std::string g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string plain(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

}  // namespace

int cmd_plan(const PlanArgs& a, std::ostream& out, std::ostream& err) {
  bool ok = true;
  // Each value is read with the same range a suite's checkpoint or restore phase takes, so no figure
  // comes out as inf, NaN or a JSON null.
  auto take = [&](const char* option, const std::string& text, std::optional<double> v, double min, double max,
                  bool whole, const std::string& what, const std::string& range = "") -> std::optional<double> {
    if (v && std::isfinite(*v) && *v >= min && *v <= max && (!whole || *v == std::floor(*v))) return v;
    err << "iofab plan: " << option << ": expected " << what << " from "
        << (range.empty() ? g(min) + " to " + g(max) : range) << ", got \"" << text << "\"\n";
    ok = false;
    return std::nullopt;
  };
  CheckpointPlanInput in;
  if (auto v = take("--params", a.params, units::parse_count(a.params), kMinParams, kMaxParams, false,
                    "a parameter count like 175e9"))
    in.params = *v;
  if (auto v = take("--bytes-per-param", a.bytes_per_param, units::parse_count(a.bytes_per_param),
                    kMinBytesPerParam, kMaxBytesPerParam, false, "a number of bytes like 14"))
    in.bytes_per_param = *v;
  if (auto v = take("--interval", a.interval, units::parse_duration(a.interval), kMinIntervalSeconds,
                    kMaxIntervalSeconds, false, "a duration like \"1h\" or \"30min\"", "1ms to 365 days"))
    in.interval_s = *v;
  if (auto v = take("--budget-fraction", a.budget_fraction, units::parse_fraction(a.budget_fraction),
                    kMinBudgetFraction, 1, false, "a fraction like 0.05 or \"5%\""))
    in.budget_fraction = *v;
  if (auto v = take("--fanout", a.fanout, units::parse_count(a.fanout), 1, kMaxFanout, true,
                    "a whole number like 8"))
    in.fanout = static_cast<unsigned>(*v);
  if (!a.gpus.empty()) {
    if (auto v = take("--gpus", a.gpus, units::parse_count(a.gpus), 1, 1e9, true, "a whole number like 2000"))
      in.gpus = *v;
  }
  if (auto v = take("--writer-fraction", a.writer_fraction, units::parse_fraction(a.writer_fraction),
                    kMinWriterFraction, 1, false, "a fraction like 0.125"))
    in.writer_fraction = *v;
  if (!a.restore_budget.empty()) {
    if (auto v = take("--restore-budget", a.restore_budget, units::parse_duration(a.restore_budget),
                      kMinIntervalSeconds, kMaxIntervalSeconds, false, "a duration like \"10min\"",
                      "1ms to 365 days"))
      in.restore_budget_s = *v;
  }
  if (!ok) return 2;

  const CheckpointPlan plan = make_checkpoint_plan(in);
  if (a.json) {
    out << to_json(plan).dump(2) << "\n";
    return 0;
  }
  auto row = [&](const std::string& label, const std::string& value) {
    out << "  " << label << std::string(label.size() < 30 ? 30 - label.size() : 1, ' ') << value << "\n";
  };
  out << "checkpoint plan: " << a.params << " parameters x " << plain(in.bytes_per_param)
      << " bytes/parameter, every " << units::format_duration(in.interval_s) << "\n";
  row("checkpoint size", plain(plan.checkpoint_bytes) + " bytes (" + sci(plan.checkpoint_bytes) + ", " +
                             units::format_bytes(plan.checkpoint_bytes) + ")");
  row("allowed stall", plain(plan.allowed_stall_seconds) + " s (" + plain(in.budget_fraction * 100) +
                           "% of " + units::format_duration(in.interval_s) + ")");
  row("required write bandwidth", units::format_rate(plan.required_write_bytes_per_s) + " (" +
                                      sci(plan.required_write_bytes_per_s) + " bytes/s)");
  row("restore reads (fanout " + std::to_string(in.fanout) + ")",
      plain(plan.restore_read_bytes) + " bytes (" + sci(plan.restore_read_bytes) + ")");
  row("required restore bandwidth",
      units::format_rate(plan.required_restore_bytes_per_s) + " (" + sci(plan.required_restore_bytes_per_s) +
          " bytes/s, restoring in " + plain(plan.restore_seconds) + " s" +
          (in.restore_budget_s > 0 ? ", the restore budget)" : ", the allowed stall)"));
  if (in.gpus > 0) {
    out << "per-GPU shares (" << plain(in.gpus) << " GPUs, " << plain(plan.writers) << " of them write):\n";
    row("checkpoint bytes per writer", units::format_bytes(plan.per_writer_checkpoint_bytes));
    row("write bandwidth per writer", units::format_rate(plan.per_writer_write_bytes_per_s));
    row("read bandwidth per GPU", units::format_rate(plan.per_gpu_read_bytes_per_s));
  }
  return 0;
}

}  // namespace iofab
