// iofab's command line: run | validate | list | clean | plan | compare | report | calibrate. Only this
// file turns a Status into an exit code: 0 passed, 1 a check failed, 2 usage or suite
// error, 3 runtime error, 130 interrupted.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <iostream>

#include "driver/cli/calibrate_command.h"
#include "driver/cli/commands.h"
#include "driver/cli/report_commands.h"
#include "driver/cli/run_outputs.h"
#include "harness/comm/comm.h"
#include "harness/core/build_info.h"
#include "driver/runner/signals.h"
#include "driver/suite/suite.h"

namespace {

using namespace iofab;  // this file is iofab's entry point, outside its namespace

// --scale N: a number from 1 to 1e12. CLI::Range lets NaN through (no comparison with it is true), and a
// NaN scale was then taken for "not given".
CLI::Validator scale_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        const bool number = !text.empty() && end == text.c_str() + text.size();
        if (number && std::isfinite(v) && v >= 1 && v <= 1e12) return "";
        return "expected a number from 1 to 1e12 like 100 (every checkpoint phase at 1/N), got \"" + text +
               "\"";
      },
      "NUMBER in [1 - 1e12]");
}

// Every command's arguments and its CLI11 subcommand, filled by the add_* functions below.
struct Commands {
  RunArgs run_args;
  CLI::App* run = nullptr;
  CLI::Option* rank_timeout = nullptr;
  std::string validate_suite;
  std::vector<std::string> validate_sets;
  std::string validate_target;
  CLI::App* validate = nullptr;
  std::string list_target = ".";
  bool list_json = false;
  CLI::App* list = nullptr;
  CleanArgs clean_args;
  CLI::App* clean = nullptr;
  PlanArgs plan_args;
  CLI::App* plan = nullptr;
  CLI::Option* bytes_per_param = nullptr;
  CLI::Option* writer_fraction = nullptr;
  CompareArgs compare_args;
  CLI::App* compare = nullptr;
  ReportArgs report_args;
  CLI::App* report = nullptr;
  CalibrateArgs calibrate_args;
  CLI::App* calibrate = nullptr;
};

void add_run_command(CLI::App& app, Commands* c) {
  RunArgs& a = c->run_args;
  c->run = app.add_subcommand("run", "Run a suite; with no SUITE, the built-in default suite");
  c->run->add_option("suite", a.options.suite, "Suite file, or a built-in suite name")->capture_default_str();
  c->run->add_option("--target", a.target, "Folder to write under (overrides the suite's target)");
  c->run->add_option("--out,-o", a.out,
                  "Report path (default: iofab-report-<run id>.json); checked before the run: it must be "
                  "creatable and not the suite file");
  c->run->add_option("--set", a.options.sets, "Override a suite value: PATH=VALUE (target, defaults.KEY, "
                                                  "phases.NAME.KEY); repeatable")
      ->take_all();
  c->run->add_option("--scale", a.scale,
                  "Write every checkpoint phase at 1/N of its full size (sets each one's scale; the report "
                  "projects back to full size)")
      ->check(scale_check());
  c->run->add_flag("--keep", a.options.keep, "Keep the run folder and its files");
  c->run->add_flag("--quiet,-q", a.options.quiet, "No live progress line and no summary");
  c->rank_timeout =
      c->run->add_option("--rank-timeout", a.rank_timeout,
                      "How long ranks wait for each other before a silent one counts as lost: 1s to 7 days "
                      "(default 10min)");
  c->run->add_flag("--no-preflight", a.options.no_preflight,
                "Skip the free-space check, to test what happens when the target fills up (for fault tests: a "
                "run may write until the disk is full)");
  c->run->add_option("--repeat", a.repeat,
                  "Run the suite N times (after a warm-up run) and report the means, each metric's stdev and cv, "
                  "and every run; checks use the means")
      ->check(CLI::Range(1, 1000000));
  c->run->add_flag("--no-warmup", a.no_warmup, "With --repeat: no warm-up run first");
  c->run->add_option("--output", a.outputs, run_output_help())
      ->allow_extra_args(false);  // one value per --output: the suite after it stays the suite
  c->run->add_option("--junit", a.junit,
                     "Also write the checks as JUnit XML to FILE (for CI): --output junit=FILE");
  c->run->add_option(
      "--openmetrics", a.openmetrics,
      "Also write the headline figures and checks as OpenMetrics text to FILE (node_exporter's "
      "textfile collector, the Pushgateway): --output openmetrics=FILE");
  add_live_flags(c->run, &a.live_flags, &a.options.live);
}

void add_validate_command(CLI::App& app, Commands* c) {
  c->validate = app.add_subcommand("validate", "Check a suite file and print it resolved");
  c->validate->add_option("suite", c->validate_suite, "Suite file, or a built-in suite name")->required();
  c->validate->add_option("--set", c->validate_sets, "Override a suite value: PATH=VALUE")->take_all();
  c->validate->add_option("--target", c->validate_target,
                       "The target the run would use (overrides the suite's): also check what the suite may "
                       "hold there (phase kinds and keys on s3://, object-store figures on a folder)");
}

void add_list_command(CLI::App& app, Commands* c) {
  c->list = app.add_subcommand(
      "list",
      "Engines, backends, devices, the target's filesystem and run folders left there by killed runs");
  c->list->add_option("--target", c->list_target, "Folder whose filesystem to describe")->capture_default_str();
  c->list->add_flag("--json", c->list_json, "Print JSON instead of text");
}

void add_clean_command(CLI::App& app, Commands* c) {
  c->clean = app.add_subcommand(
      "clean",
      "List the run folders killed runs left under a target (no live run holds them) and remove them");
  c->clean->add_option("--target", c->clean_args.target, "The folder runs wrote under, or s3://bucket/prefix")
      ->required();
  c->clean->add_flag("--yes,-y", c->clean_args.yes,
                  "Remove them without asking (without it and without a terminal: list only)");
  c->clean->add_flag("--include-kept", c->clean_args.include_kept,
                  "Also remove folders of runs made with --keep (a kept checkpoint restore's `from` reads)");
  c->clean
      ->add_option("--suite", c->clean_args.suite,
                   "s3:// target: the suite whose \"s3\" settings reach it (endpoint, region, addressing)")
      ->capture_default_str();
  c->clean->add_option("--set", c->clean_args.sets, "s3:// target: override a suite value, e.g. s3.endpoint=URL")
      ->take_all();
}

void add_plan_command(CLI::App& app, Commands* c) {
  c->plan = app.add_subcommand(
      "plan", "Checkpoint size, every rank's bytes, allowed stall and the bandwidth a model needs (5% rule)");
  c->plan->add_option("--params", c->plan_args.params, "Model parameters, e.g. 175e9 (or --preset / --model)");
  c->plan->add_option(
      "--preset", c->plan_args.preset,
      "A named model: llama3-8b, llama3-70b, llama3-405b (exact), mlperf-llama3-8b, -70b, -405b, -1t "
      "(MLPerf Storage, DLIO's rules)");
  c->plan->add_option("--model", c->plan_args.model,
                   "A model as JSON: layers, hidden, ffn, vocab, heads, kv_heads, tied_embeddings, dtype, "
                   "master_dtype, optimizer_dtype, tensor, pipeline, data, zero, formula (over --preset's)");
  c->plan->add_option("--tensors", c->plan_args.tensors, "With a model: list this rank's tensors");
  c->plan->add_option("--replica-writer", c->plan_args.replica_writer,
                   "With a model: who writes replicated state: first (default), spread or all; the plan shows "
                   "every rank's bytes and the skew");
  c->bytes_per_param = c->plan->add_option("--bytes-per-param", c->plan_args.bytes_per_param,
                                           "Checkpoint bytes per parameter (with --params)")
                              ->capture_default_str();
  c->plan->add_option("--interval", c->plan_args.interval, "Checkpoint interval, e.g. 1h")->capture_default_str();
  c->plan->add_option("--budget-fraction", c->plan_args.budget_fraction, "Share of the interval a stall may take")
      ->capture_default_str();
  c->plan->add_option("--fanout", c->plan_args.fanout, "Restore reads per byte written")->capture_default_str();
  c->plan->add_option("--gpus", c->plan_args.gpus, "GPUs in the job, for per-GPU shares");
  c->writer_fraction = c->plan->add_option("--writer-fraction", c->plan_args.writer_fraction,
                                           "Share of the GPUs that write a checkpoint (with --params)")
                              ->capture_default_str();
  c->plan->add_option("--restore-budget", c->plan_args.restore_budget,
                   "Time a restore may take (default: the allowed stall)");
  c->plan->add_flag("--json", c->plan_args.json, "Print JSON instead of a table");
}

void add_compare_command(CLI::App& app, Commands* c) {
  c->compare = app.add_subcommand("compare", "Compare a report with a baseline; exit 1 on a regression");
  c->compare->add_option("baseline", c->compare_args.baseline, "The baseline report (JSON)")->required();
  c->compare->add_option("current", c->compare_args.current, "The report to check (JSON)")->required();
  c->compare->add_option("--tolerance", c->compare_args.tolerance,
                      "How far a metric may move the bad way, e.g. 5% or 0.05 (with repeated runs, also beyond "
                      "the runs' noise)")
      ->capture_default_str();
  c->compare->add_option("--metric", c->compare_args.metrics,
                      "Compare only metrics matching GLOB (fnmatch, on METRIC or PHASE/METRIC); repeatable")
      ->take_all()
      ->allow_extra_args(false);  // one value per --metric: the report files are never taken for globs
  c->compare->add_option(
      "--out", c->compare_args.out,
      "Also write the comparison to FILE (.json, .md, or text); never one of the reports compared");
  c->compare->add_option(
      "--junit", c->compare_args.junit,
      "Also write JUnit XML to FILE: a test case per metric; never one of the reports compared");
  c->compare->add_flag("--force", c->compare_args.force, "Compare reports of different suites or schema versions anyway");
}

void add_report_command(CLI::App& app, Commands* c) {
  c->report = app.add_subcommand(
      "report",
      "One self-contained HTML page (or Markdown, OpenMetrics) comparing reports; with --history, "
      "one suite's reports over time");
  c->report->add_option("reports", c->report_args.inputs, "Reports (JSON), one per system")->required();
  c->report
      ->add_option("-o,--out", c->report_args.out,
                   "The page to write (\"-\": stdout); never one of the reports read")
      ->required();
  c->report->add_option("--format", c->report_args.format, report_format_help())
      ->check(CLI::IsMember(report_format_choices()));
  c->report->add_option("--label", c->report_args.labels, "A name per report, in order (default: the file names)")
      ->take_all()
      ->allow_extra_args(false);  // one value per --label: "a.json --label A b.json" keeps b.json a report
  c->report->add_flag("--history", c->report_args.history,
                   "The reports are one suite's over time (a CI job's): write the history page, a plot per "
                   "headline metric with compare's noise band and each regression marked, and a table of the "
                   "last runs");
  c->report->add_option("--tolerance", c->report_args.tolerance,
                     "With --history: how far a metric may move the bad way before it is a regression, as "
                     "compare's (default 5%)");
  c->report->add_option("--last", c->report_args.last, "With --history: the runs in the table (default 10)")
      ->check(CLI::Range(1, 1000000));
}

void add_calibrate_command(CLI::App& app, Commands* c) {
  c->calibrate = app.add_subcommand(
      "calibrate",
      "Measure the real PyTorch DataLoader's costs with python3 and torch, and write the calibration file "
      "the pytorch loader profile reads (docs/calibration.md)");
  c->calibrate->add_option("--out", c->calibrate_args.out,
                           "The calibration file (default: $XDG_CONFIG_HOME/iofab/calibration.json or "
                           "~/.config/iofab/calibration.json)");
  c->calibrate->add_option("--dir", c->calibrate_args.dir,
                           "Where to make the scratch folder of small files, removed afterwards (default: "
                           "$TMPDIR or /tmp)");
  c->calibrate->add_option("--python", c->calibrate_args.python,
                           "The python3 with torch (default: /usr/bin/python3, else python3 on PATH)");
  c->calibrate
      ->add_option("--files", c->calibrate_args.files, "Files of 16 KiB made (fewer of the larger sizes)")
      ->check(CLI::Range(16, 100000));
  c->calibrate->add_option("--rounds", c->calibrate_args.rounds, "Repetitions per size (medians)")
      ->check(CLI::Range(1, 100));
}

// `iofab run`: the report courier and the stop handlers, then MPI (or one rank), then the run.
int run_command(int argc, char** argv, const std::string& command_line, RunArgs* run_args) {
  // The courier is forked before MPI starts: forking an MPI process is unsafe on some transports.
  std::unique_ptr<ReportCourier> courier;
  if (launched_by_mpi_launcher()) {
    if (Status c = ReportCourier::start(&courier); !c.ok()) {
      std::cerr << "iofab: " << c.message() << " (the report is written by this rank instead)\n";
    }
    run_args->courier = courier.get();
  }
  // From here a stop signal (Ctrl-C, SIGTERM, SIGHUP, `timeout` firing early) ends in an `interrupted`
  // report and no run folder, not in the default action; the courier, forked above, keeps its own.
  install_stop_handlers();
  // A suite whose phases run at once needs MPI started for threads; read here, before MPI starts (a
  // suite that does not load fails in cmd_run with its message).
  Suite peek;
  const bool threads_at_once =
      (load_suite(run_args->options.suite, run_args->options.sets, &peek).ok() &&
       has_concurrent_groups(peek)) ||
      live_watch_wanted(run_args->options.live, run_args->options.quiet);  // a watcher thread (live.md)
  std::unique_ptr<Comm> comm;
  Status cs = make_world_comm(&argc, &argv, threads_at_once, &comm, &run_args->options.comm_reason);
  if (!cs.ok()) {
    std::cerr << "iofab: " << cs.message() << "\n";
    return cs.code() == Status::Code::kInvalidArgument ? 2 : 3;  // srun without PMIx is bad input
  }
  run_args->options.command_line = command_line;
  return cmd_run(*comm, *run_args, std::cout, std::cerr);
}

int iofab_main(int argc, char** argv) {
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);

  CLI::App app{"iofab: can this storage and this fabric keep the GPUs busy?"};
  app.set_version_flag("--version", std::string("iofab ") + build_info().version + " (" + build_info().git_sha +
                                        ", " + build_info().compiler + ", backends: " + build_info().backends + ")");
  app.require_subcommand(1);
  app.fallthrough(false);
  Commands c;
  add_run_command(app, &c);
  add_validate_command(app, &c);
  add_list_command(app, &c);
  add_clean_command(app, &c);
  add_plan_command(app, &c);
  add_compare_command(app, &c);
  add_report_command(app, &c);
  add_calibrate_command(app, &c);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  // Given empty is bad input, not the default.
  c.run_args.rank_timeout_given = c.rank_timeout->count() > 0;
  if (*c.validate) return cmd_validate(c.validate_suite, c.validate_sets, c.validate_target, std::cout, std::cerr);
  if (*c.list) return cmd_list(c.list_target, c.list_json, std::cout);
  if (*c.clean) return cmd_clean(c.clean_args, isatty(STDIN_FILENO) != 0, std::cin, std::cout, std::cerr);
  if (*c.plan) {
    c.plan_args.bytes_per_param_given = c.bytes_per_param->count() > 0;
    c.plan_args.writer_fraction_given = c.writer_fraction->count() > 0;
    return cmd_plan(c.plan_args, std::cout, std::cerr);
  }
  if (*c.compare) return cmd_compare(c.compare_args, std::cout, std::cerr);
  if (*c.report) return cmd_report(c.report_args, std::cout, std::cerr);
  if (*c.calibrate) return cmd_calibrate(c.calibrate_args, std::cout, std::cerr);
  return run_command(argc, argv, command_line, &c.run_args);
}

}  // namespace

int main(int argc, char** argv) {
  // Last resort: every error should already be a Status; an exception that gets here is a bug, but it
  // must end as a message and exit 3, not an abort (134) with a core dump.
  try {
    return iofab_main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "iofab: internal error: " << e.what() << "\n";
    return 3;
  }
}
