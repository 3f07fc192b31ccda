#include "driver/cli/commands.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "driver/cli/output_paths.h"
#include "driver/cli/run_outputs.h"
#include "harness/comm/agree.h"
#include "harness/core/build_info.h"
#include "harness/core/json_text.h"
#include "harness/core/units.h"
#include "harness/engines/engine.h"
#include "harness/fs/atomic_file.h"
#include "harness/fs/target.h"
#include "harness/gpu/devices.h"
#include "driver/runner/repeat.h"
#include "driver/suite/suite.h"
#include "driver/targets/run_target.h"
#include "reports/console_report.h"
#include "reports/json_report.h"
#include "reports/repeat_console.h"

namespace iofab {

using nlohmann::json;

namespace {
constexpr double kMinRankTimeoutSeconds = 1;

// Writes a report that its own path refused to $TMPDIR (else /tmp), then to the current folder, as
// iofab-report-<run id>.json; the absolute path of the copy, or "" when none could take it.
std::string write_fallback_report(const std::string& refused, const std::string& run_id,
                                  const std::string& text) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string name = "iofab-report-" + run_id + ".json";
  std::error_code ec;
  const auto refused_abs = std::filesystem::absolute(refused, ec);
  for (const std::string& dir :
       {std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp"), std::string(".")}) {
    auto at = std::filesystem::absolute(std::filesystem::path(dir) / name, ec);
    if (ec || at == refused_abs) continue;
    // The name holds the run id: it replaces only an earlier copy of this run's report.
    if (write_file_atomic(at.string(), text).ok()) return at.string();
  }
  return "";
}
constexpr double kMaxRankTimeoutSeconds = 7 * 24 * 3600;
}  // namespace

namespace {

// --target, --scale, --rank-timeout and the options the ranks compare: every rank leaves together on a bad
// value. Not Ok: the exit code in *code.
bool read_run_options(Comm& comm, RunArgs& args, std::ostream& err, int* code) {
  if (!args.target.empty()) args.options.target = args.target;
  if (args.scale > 0) {
    char text[64];
    std::snprintf(text, sizeof text, "checkpoint_scale=%.17g", args.scale);
    args.options.sets.emplace_back(text);
  }
  Status bad_option;
  if (args.rank_timeout_given || !args.rank_timeout.empty()) {
    // Below a second, a healthy rank that is merely busy (a loaded machine, the control plane's polling)
    // would count as lost; above a week, it is no timeout at all.
    auto t = units::parse_duration(args.rank_timeout);
    if (!t || *t < kMinRankTimeoutSeconds || *t > kMaxRankTimeoutSeconds) {
      bad_option = Status::Invalid(
          "--rank-timeout: expected a duration from 1s to 7 days like \"90s\" or "
          "\"10min\", got \"" +
          args.rank_timeout + "\"");
    } else {
      args.options.rank_timeout_s = *t;
    }
  }
  if (bad_option.ok()) bad_option = read_live_flags(args.live_flags, &args.options.live);
  // Every rank leaves together, even when only one was given a bad value (the others would wait for it).
  if (Status a = comm.size() > 1 ? agree(comm, bad_option) : bad_option; !a.ok()) {
    if (comm.rank() == 0) err << "iofab: " << a.message() << "\n";
    *code = a.code() == Status::Code::kInvalidArgument ? 2 : 3;
    return false;
  }
  // Options the runner compares across ranks, with the suite and the target (same_run.h).
  char scale[64];
  std::snprintf(scale, sizeof scale, "%.17g", args.scale);
  args.options.agreed = {
      {"--scale", args.scale > 0 ? scale : "(none)"},
      {"--repeat",
       args.repeat == 0 ? "(none)" : std::to_string(args.repeat) + (args.no_warmup ? ", --no-warmup" : "")}};
  return true;
}

// The outputs, checked before the suite runs; false with the exit code in *code.
bool check_run_outputs(Comm& comm, const RunArgs& args, std::ostream& err, int* code) {
  // The outputs, before the suite runs: a report that could not be written, or one written over the suite
  // file, would lose the run at its end. Rank 0 checks (the writer's view of the paths); every rank learns
  // the verdict, so all exit 2 together.
  {
    std::string refused;
    if (comm.rank() == 0) {
      std::vector<RunOutput> extra;
      Status o = resolve_run_outputs(args.outputs, args.junit, args.openmetrics, &extra);
      std::vector<NamedPath> outputs = {{"--out", args.out}};
      for (const RunOutput& e : extra) outputs.push_back(e.named);
      for (const NamedPath& p : live_output_paths(args.options.live)) outputs.push_back(p);
      if (o.ok()) o = check_outputs({{"suite", args.options.suite}}, outputs);
      if (!o.ok()) refused = o.message();
    }
    if (Status b = comm.broadcast(&refused, 0); !b.ok()) {
      err << "iofab: " << b.message() << "\n";
      *code = 3;
      return false;
    }
    if (!refused.empty()) {
      if (comm.rank() == 0) err << "iofab: " << refused << "\n";
      *code = 2;
      return false;
    }
  }
  return true;
}

// Where the report goes: --out, or iofab-report-<run id>.json; and, when that path cannot take it, the
// fallback it went to instead (said once).
struct ReportWriter {
  RunArgs& args;
  std::ostream& err;
  std::string fallback_path;

  std::string path(const Report& r) const {
    return args.out.empty() ? "iofab-report-" + r.run.value("id", std::string("run")) + ".json" : args.out;
  }
  Status write(const Report& r) {
    const std::string text = render_json_report(r);
    Status w =
        args.courier != nullptr ? args.courier->deliver(path(r), text) : write_file_atomic(path(r), text);
    if (!w.ok()) {
      const std::string at = write_fallback_report(path(r), r.run.value("id", std::string("run")), text);
      if (!at.empty() && at != fallback_path) {
        fallback_path = at;
        err << "iofab: cannot write the report to " << path(r) << " (" << w.message() << "); written to "
            << at << " instead\n";
      }
    }
    return w;
  }
};

void install_report_hooks(RunArgs& args, ReportWriter& writer, std::ostream& err) {
  // A first copy before cleanup: if the process is killed while removing files, the report is there.
  // Under a launcher, which kills the ranks a second after its stop signal, the courier also takes
  // over the cleanup should this rank go before it is done.
  // The courier removes a run folder on a filesystem it can reach; an object store's keys (access "object")
  // are the writer's to delete, and a kept run stays.
  const auto courier_removes = [](const Report& r) {
    return r.target.value("access", std::string()) != "object" && !r.target.value("kept", false);
  };
  if (args.repeat == 0) {
    args.options.on_report_ready = [&args, &writer, &err, courier_removes](const Report& r) {
      if (args.courier != nullptr && courier_removes(r)) {
        (void)args.courier->remove_if_gone(r.target.value("run_folder", std::string()));
      }
      if (Status w = writer.write(r); !w.ok())
        err << "iofab: cannot write the report: " << w.message() << "\n";
    };
    if (args.courier != nullptr) {
      // Should this rank be killed before the report above is handed over, the courier writes this one.
      args.options.on_fallback_report = [&args, &writer, courier_removes](const Report& r) {
        if (courier_removes(r)) {
          (void)args.courier->remove_if_gone(r.target.value("run_folder", std::string()));
        }
        (void)args.courier->leave_fallback(writer.path(r), render_json_report(r));
      };
    }
  }
}

// The report's writer, once the run is done: the report, the console, --output (--junit, --openmetrics).
int finish_run(Comm& comm, const RunArgs& args, ReportWriter& writer, const Report& report, std::ostream& out,
               std::ostream& err) {
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
  const std::string path = writer.path(report);
  Status w = writer.write(report);
  // A cleanup that failed is said on the console too, quiet or not: files or objects are left on the target.
  if (const auto it = report.target.find("left_behind"); it != report.target.end() && it->is_object()) {
    err << "iofab: cleanup failed: " << it->value("error", std::string()) << "\n"
        << "iofab: left behind: " << it->value("location", std::string())
        << "; remove it with: " << it->value("clean_command", std::string()) << "\n";
  }
  if (!args.options.quiet) write_console_summary(report, out);
  if (!args.options.quiet && args.repeat > 0) write_repeat_summary(report, out);
  if (!w.ok()) {
    err << "iofab: cannot write the report: " << w.message() << "\n";
    if (!writer.fallback_path.empty())
      out << "report: " << writer.fallback_path << " (not at " << path << ")\n";
    return 3;
  }
  // --output and its aliases, each through its reporter (checked before the run: resolve_run_outputs).
  std::vector<RunOutput> extra;
  (void)resolve_run_outputs(args.outputs, args.junit, args.openmetrics, &extra);
  for (const RunOutput& o : extra) {
    if (Status wrote = write_file_atomic(o.named.path, o.reporter->render(report)); !wrote.ok()) {
      err << "iofab: cannot write the " << o.reporter->name << " file (" << o.named.option
          << "): " << wrote.message() << "\n";
      return 3;
    }
  }
  std::error_code ec;
  auto abs = std::filesystem::absolute(path, ec);
  out << "report: " << (ec ? path : abs.string()) << "\n";
  return exit_code_for(report);
}

}  // namespace

int cmd_run(Comm& comm, RunArgs& args, std::ostream& out, std::ostream& err) {
  int code = 0;
  if (!read_run_options(comm, args, err, &code) || !check_run_outputs(comm, args, err, &code)) return code;
  ReportWriter writer{.args = args, .err = err, .fallback_path = {}};
  install_report_hooks(args, writer, err);
  Report report;
  Status st = args.repeat > 0
                  ? run_suite_repeated(comm, args.options,
                                       RepeatOptions{args.repeat, !args.no_warmup, args.out},
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
  // --live -: stdout carries the JSON lines alone, so the summary goes to stderr.
  return finish_run(comm, args, writer, report, args.options.live.live == "-" ? err : out, err);
}

int cmd_validate(const std::string& suite_path, const std::vector<std::string>& sets,
                 const std::string& target, std::ostream& out, std::ostream& err) {
  Suite suite;
  Status st = load_suite(suite_path, sets, &suite);
  // Where the target is known, what the suite may hold there too (a check on an object store's figure on a
  // folder, a prepare phase on S3): the same answer `run` gives, before it writes anything.
  const std::optional<std::string> where =
      !target.empty() ? std::optional<std::string>(target) : suite.target;
  if (st.ok() && where) st = check_suite_for_target(suite, *where, 1);
  if (!st.ok()) {
    err << "iofab: " << st.message() << "\n";
    return 2;
  }
  json phases = json::array();
  for (const auto& p : suite.phases) {
    json checks = json::array();
    for (const auto& c : p.checks) {
      checks.push_back(
          {{"name", c.name}, {"metric", c.metric}, {"op", check_op_text(c.op)}, {"threshold", c.threshold}});
    }
    json entry = {{"name", p.name}, {"kind", p.kind->name}, {"params", p.params}, {"checks", checks}};
    if (p.group >= 0) {
      // A member of a concurrent group says which, and whether it is the clock.
      const PhaseGroup& g = suite.groups[static_cast<size_t>(p.group)];
      entry["concurrent"] = {
          {"group", g.label},
          {"clock", g.clock >= 0 && suite.phases[static_cast<size_t>(g.clock)].name == p.name},
          {"solo", g.solo}};
    }
    phases.push_back(std::move(entry));
  }
  json j = {{"suite", suite.source}, {"name", suite.name}, {"sha256", suite.sha256}, {"phases", phases}};
  if (where) j["target"] = *where;
  out << json_text(j, 2) << "\n";
  err << "suite OK: " << suite.phases.size() << " phase" << (suite.phases.size() == 1 ? "" : "s");
  for (const auto& g : suite.groups) err << "; at once: " << g.label;
  err << "\n";
  return 0;
}

}  // namespace iofab
