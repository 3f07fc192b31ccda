// iofab's command line: run | validate | list | clean | plan | compare | report. Only this file turns a
// Status into an exit code: 0 passed, 1 a check failed, 2 usage or suite
// error, 3 runtime error, 130 interrupted.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <iostream>

#include "driver/cli/commands.h"
#include "driver/cli/report_commands.h"
#include "harness/comm/comm.h"
#include "harness/core/build_info.h"
#include "driver/runner/signals.h"
#include "driver/suite/suite.h"

namespace {

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

int iofab_main(int argc, char** argv) {
  using namespace iofab;
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);

  CLI::App app{"iofab: can this storage and this fabric keep the GPUs busy?"};
  app.set_version_flag("--version", std::string("iofab ") + build_info().version + " (" + build_info().git_sha +
                                        ", " + build_info().compiler + ", backends: " + build_info().backends + ")");
  app.require_subcommand(1);
  app.fallthrough(false);

  RunArgs run_args;
  auto* run = app.add_subcommand("run", "Run a suite; with no SUITE, the built-in default suite");
  run->add_option("suite", run_args.options.suite, "Suite file, or a built-in suite name")->capture_default_str();
  run->add_option("--target", run_args.target, "Folder to write under (overrides the suite's target)");
  run->add_option("--out,-o", run_args.out,
                  "Report path (default: iofab-report-<run id>.json); checked before the run: it must be "
                  "creatable and not the suite file");
  run->add_option("--set", run_args.options.sets, "Override a suite value: PATH=VALUE (target, defaults.KEY, "
                                                  "phases.NAME.KEY); repeatable")
      ->take_all();
  run->add_option("--scale", run_args.scale,
                  "Write every checkpoint phase at 1/N of its full size (sets each one's scale; the report "
                  "projects back to full size)")
      ->check(scale_check());
  run->add_flag("--keep", run_args.options.keep, "Keep the run folder and its files");
  run->add_flag("--quiet,-q", run_args.options.quiet, "No live progress line and no summary");
  auto* rank_timeout =
      run->add_option("--rank-timeout", run_args.rank_timeout,
                      "How long ranks wait for each other before a silent one counts as lost: 1s to 7 days "
                      "(default 10min)");
  run->add_flag("--no-preflight", run_args.options.no_preflight,
                "Skip the free-space check, to test what happens when the target fills up (for fault tests: a "
                "run may write until the disk is full)");
  run->add_option("--repeat", run_args.repeat,
                  "Run the suite N times (after a warm-up run) and report the means, each metric's stdev and cv, "
                  "and every run; checks use the means")
      ->check(CLI::Range(1, 1000000));
  run->add_flag("--no-warmup", run_args.no_warmup, "With --repeat: no warm-up run first");
  run->add_option("--junit", run_args.junit,
                  "Also write the checks as JUnit XML to FILE (for CI); checked before the run like --out");
  run->add_option("--openmetrics", run_args.openmetrics,
                  "Also write the headline figures and checks as OpenMetrics text to FILE (node_exporter's "
                  "textfile collector, the Pushgateway); checked before the run like --out");

  std::string validate_suite;
  std::vector<std::string> validate_sets;
  auto* validate = app.add_subcommand("validate", "Check a suite file and print it resolved");
  validate->add_option("suite", validate_suite, "Suite file, or a built-in suite name")->required();
  validate->add_option("--set", validate_sets, "Override a suite value: PATH=VALUE")->take_all();
  std::string validate_target;
  validate->add_option("--target", validate_target,
                       "The target the run would use (overrides the suite's): also check what the suite may "
                       "hold there (phase kinds and keys on s3://, object-store figures on a folder)");

  std::string list_target = ".";
  auto* list = app.add_subcommand(
      "list",
      "Engines, backends, devices, the target's filesystem and run folders left there by killed runs");
  list->add_option("--target", list_target, "Folder whose filesystem to describe")->capture_default_str();
  bool list_json = false;
  list->add_flag("--json", list_json, "Print JSON instead of text");

  CleanArgs clean_args;
  auto* clean = app.add_subcommand(
      "clean",
      "List the run folders killed runs left under a target (no live run holds them) and remove them");
  clean->add_option("--target", clean_args.target, "The folder runs wrote under, or s3://bucket/prefix")
      ->required();
  clean->add_flag("--yes,-y", clean_args.yes,
                  "Remove them without asking (without it and without a terminal: list only)");
  clean->add_flag("--include-kept", clean_args.include_kept,
                  "Also remove folders of runs made with --keep (a kept checkpoint restore's `from` reads)");
  clean
      ->add_option("--suite", clean_args.suite,
                   "s3:// target: the suite whose \"s3\" settings reach it (endpoint, region, addressing)")
      ->capture_default_str();
  clean->add_option("--set", clean_args.sets, "s3:// target: override a suite value, e.g. s3.endpoint=URL")
      ->take_all();

  PlanArgs plan_args;
  auto* plan = app.add_subcommand(
      "plan", "Checkpoint size, every rank's bytes, allowed stall and the bandwidth a model needs (5% rule)");
  plan->add_option("--params", plan_args.params, "Model parameters, e.g. 175e9 (or --preset / --model)");
  plan->add_option(
      "--preset", plan_args.preset,
      "A named model: llama3-8b, llama3-70b, llama3-405b (exact), mlperf-llama3-8b, -70b, -405b, -1t "
      "(MLPerf Storage, DLIO's rules)");
  plan->add_option("--model", plan_args.model,
                   "A model as JSON: layers, hidden, ffn, vocab, heads, kv_heads, tied_embeddings, dtype, "
                   "master_dtype, optimizer_dtype, tensor, pipeline, data, zero, formula (over --preset's)");
  plan->add_option("--tensors", plan_args.tensors, "With a model: list this rank's tensors");
  plan->add_option("--replica-writer", plan_args.replica_writer,
                   "With a model: who writes replicated state: first (default), spread or all; the plan shows "
                   "every rank's bytes and the skew");
  auto* bytes_per_param = plan->add_option("--bytes-per-param", plan_args.bytes_per_param,
                                           "Checkpoint bytes per parameter (with --params)")
                              ->capture_default_str();
  plan->add_option("--interval", plan_args.interval, "Checkpoint interval, e.g. 1h")->capture_default_str();
  plan->add_option("--budget-fraction", plan_args.budget_fraction, "Share of the interval a stall may take")
      ->capture_default_str();
  plan->add_option("--fanout", plan_args.fanout, "Restore reads per byte written")->capture_default_str();
  plan->add_option("--gpus", plan_args.gpus, "GPUs in the job, for per-GPU shares");
  auto* writer_fraction = plan->add_option("--writer-fraction", plan_args.writer_fraction,
                                           "Share of the GPUs that write a checkpoint (with --params)")
                              ->capture_default_str();
  plan->add_option("--restore-budget", plan_args.restore_budget,
                   "Time a restore may take (default: the allowed stall)");
  plan->add_flag("--json", plan_args.json, "Print JSON instead of a table");

  CompareArgs compare_args;
  auto* compare = app.add_subcommand("compare", "Compare a report with a baseline; exit 1 on a regression");
  compare->add_option("baseline", compare_args.baseline, "The baseline report (JSON)")->required();
  compare->add_option("current", compare_args.current, "The report to check (JSON)")->required();
  compare->add_option("--tolerance", compare_args.tolerance,
                      "How far a metric may move the bad way, e.g. 5% or 0.05 (with repeated runs, also beyond "
                      "the runs' noise)")
      ->capture_default_str();
  compare->add_option("--metric", compare_args.metrics,
                      "Compare only metrics matching GLOB (fnmatch, on METRIC or PHASE/METRIC); repeatable")
      ->take_all()
      ->allow_extra_args(false);  // one value per --metric: the report files are never taken for globs
  compare->add_option(
      "--out", compare_args.out,
      "Also write the comparison to FILE (.json, .md, or text); never one of the reports compared");
  compare->add_option(
      "--junit", compare_args.junit,
      "Also write JUnit XML to FILE: a test case per metric; never one of the reports compared");
  compare->add_flag("--force", compare_args.force, "Compare reports of different suites or schema versions anyway");

  ReportArgs report_args;
  auto* report = app.add_subcommand(
      "report",
      "One self-contained HTML page (or Markdown, OpenMetrics) comparing reports; with --history, "
      "one suite's reports over time");
  report->add_option("reports", report_args.inputs, "Reports (JSON), one per system")->required();
  report
      ->add_option("-o,--out", report_args.out,
                   "The page to write (\"-\": stdout); never one of the reports read")
      ->required();
  report->add_option("--format", report_args.format, report_format_help())
      ->check(CLI::IsMember(report_format_choices()));
  report->add_option("--label", report_args.labels, "A name per report, in order (default: the file names)")
      ->take_all()
      ->allow_extra_args(false);  // one value per --label: "a.json --label A b.json" keeps b.json a report
  report->add_flag("--history", report_args.history,
                   "The reports are one suite's over time (a CI job's): write the history page, a plot per "
                   "headline metric with compare's noise band and each regression marked, and a table of the "
                   "last runs");
  report->add_option("--tolerance", report_args.tolerance,
                     "With --history: how far a metric may move the bad way before it is a regression, as "
                     "compare's (default 5%)");
  report->add_option("--last", report_args.last, "With --history: the runs in the table (default 10)")
      ->check(CLI::Range(1, 1000000));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  // Given empty is bad input, not the default.
  run_args.rank_timeout_given = rank_timeout->count() > 0;
  if (*validate) return cmd_validate(validate_suite, validate_sets, validate_target, std::cout, std::cerr);
  if (*list) return cmd_list(list_target, list_json, std::cout);
  if (*clean) return cmd_clean(clean_args, isatty(STDIN_FILENO) != 0, std::cin, std::cout, std::cerr);
  if (*plan) {
    plan_args.bytes_per_param_given = bytes_per_param->count() > 0;
    plan_args.writer_fraction_given = writer_fraction->count() > 0;
    return cmd_plan(plan_args, std::cout, std::cerr);
  }
  if (*compare) return cmd_compare(compare_args, std::cout, std::cerr);
  if (*report) return cmd_report(report_args, std::cout, std::cerr);

  // The courier is forked before MPI starts: forking an MPI process is unsafe on some transports.
  std::unique_ptr<ReportCourier> courier;
  if (launched_by_mpi_launcher()) {
    if (Status c = ReportCourier::start(&courier); !c.ok()) {
      std::cerr << "iofab: " << c.message() << " (the report is written by this rank instead)\n";
    }
    run_args.courier = courier.get();
  }
  // From here a stop signal (Ctrl-C, SIGTERM, SIGHUP, `timeout` firing early) ends in an `interrupted`
  // report and no run folder, not in the default action; the courier, forked above, keeps its own.
  install_stop_handlers();
  // A suite whose phases run at once needs MPI started for threads; read here, before MPI starts (a
  // suite that does not load fails in cmd_run with its message).
  Suite peek;
  const bool threads_at_once =
      load_suite(run_args.options.suite, run_args.options.sets, &peek).ok() && has_concurrent_groups(peek);
  std::unique_ptr<Comm> comm;
  Status cs = make_world_comm(&argc, &argv, threads_at_once, &comm, &run_args.options.comm_reason);
  if (!cs.ok()) {
    std::cerr << "iofab: " << cs.message() << "\n";
    return cs.code() == Status::Code::kInvalidArgument ? 2 : 3;  // srun without PMIx is bad input
  }
  run_args.options.command_line = command_line;
  return cmd_run(*comm, run_args, std::cout, std::cerr);
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
