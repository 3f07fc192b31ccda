#include "harness/cli/commands.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "harness/cli/output_paths.h"
#include "harness/core/json_text.h"
#include "harness/core/build_info.h"
#include "harness/engines/engine.h"
#include "harness/fs/target.h"
#include "harness/gpu/devices.h"
#include "harness/runner/repeat.h"
#include "harness/suite/suite.h"
#include "harness/suite/units.h"
#include "reports/console_report.h"
#include "reports/json_report.h"
#include "reports/junit_report.h"
#include "reports/repeat_console.h"
#include "workloads/checkpoint_budget.h"

namespace iofab {

using nlohmann::json;

int cmd_run(Comm& comm, RunArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.target.empty()) args.options.target = args.target;
  if (!args.rank_timeout.empty()) {
    auto t = units::parse_duration(args.rank_timeout);
    if (!t || *t <= 0) {
      if (comm.rank() == 0) {
        err << "iofab: --rank-timeout: expected a duration like \"90s\" or \"10min\", got \"" << args.rank_timeout
            << "\"\n";
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
    const std::string text = json_text(report_to_json(r), 2) + "\n";
    return args.courier != nullptr ? args.courier->deliver(report_path(r), text)
                                   : write_file_atomic(report_path(r), text);
  };
  // A first copy before cleanup: if the process is killed while removing files, the report is there.
  if (args.repeat == 0) {
    args.options.on_report_ready = [&](const Report& r) {
      if (Status w = write_report(r); !w.ok()) err << "iofab: cannot write the report: " << w.message() << "\n";
    };
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
  // The writer is the last to leave after a loss: the others wait for its word, given on every way out.
  struct ReleaseOnExit {
    Comm& comm;
    ~ReleaseOnExit() {
      if (comm.failed()) (void)comm.release_survivors();
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

std::string plain(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

}  // namespace

int cmd_plan(const PlanArgs& a, std::ostream& out, std::ostream& err) {
  bool ok = true;
  auto bad = [&](const char* option, const std::string& expected, const std::string& got) {
    err << "iofab plan: " << option << ": expected " << expected << ", got \"" << got << "\"\n";
    ok = false;
  };
  CheckpointPlanInput in;
  auto p = units::parse_count(a.params);
  if (!p || *p <= 0)
    bad("--params", "a parameter count like 175e9", a.params);
  else
    in.params = *p;
  auto bpp = units::parse_count(a.bytes_per_param);
  if (!bpp || *bpp <= 0)
    bad("--bytes-per-param", "a number of bytes like 14", a.bytes_per_param);
  else
    in.bytes_per_param = *bpp;
  auto iv = units::parse_duration(a.interval);
  if (!iv || *iv <= 0)
    bad("--interval", "a duration like \"1h\" or \"30min\"", a.interval);
  else
    in.interval_s = *iv;
  auto bf = units::parse_fraction(a.budget_fraction);
  if (!bf || *bf <= 0 || *bf > 1)
    bad("--budget-fraction", "a fraction in (0, 1] like 0.05 or \"5%\"", a.budget_fraction);
  else
    in.budget_fraction = *bf;
  auto fo = units::parse_count(a.fanout);
  if (!fo || *fo < 1 || *fo > 1e6 || *fo != std::floor(*fo))
    bad("--fanout", "a whole number >= 1 like 8", a.fanout);
  else
    in.fanout = static_cast<unsigned>(*fo);
  if (!a.gpus.empty()) {
    auto g = units::parse_count(a.gpus);
    if (!g || *g < 1 || *g > 1e9 || *g != std::floor(*g))
      bad("--gpus", "a whole number >= 1 like 2000", a.gpus);
    else
      in.gpus = *g;
  }
  auto wf = units::parse_fraction(a.writer_fraction);
  if (!wf || *wf <= 0 || *wf > 1)
    bad("--writer-fraction", "a fraction in (0, 1] like 0.125", a.writer_fraction);
  else
    in.writer_fraction = *wf;
  if (!a.restore_budget.empty()) {
    auto rb = units::parse_duration(a.restore_budget);
    if (!rb || *rb <= 0)
      bad("--restore-budget", "a duration like \"10min\"", a.restore_budget);
    else
      in.restore_budget_s = *rb;
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
