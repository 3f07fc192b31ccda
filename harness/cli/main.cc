// iofab's command line: run | validate | list. Only this file turns a
// Status into an exit code: 0 passed, 1 a check failed, 2 usage or suite
// error, 3 runtime error, 130 interrupted.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "harness/cli/commands.h"
#include "harness/comm/comm.h"
#include "harness/core/build_info.h"

int main(int argc, char** argv) {
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
  run->add_option("--out,-o", run_args.out, "Report path (default: iofab-report-<run id>.json)");
  run->add_option("--set", run_args.options.sets, "Override a suite value: PATH=VALUE (target, defaults.KEY, "
                                                  "phases.NAME.KEY); repeatable")
      ->take_all();
  run->add_flag("--keep", run_args.options.keep, "Keep the run folder and its files");
  run->add_flag("--quiet,-q", run_args.options.quiet, "No live progress line and no summary");
  run->add_flag("--no-preflight", run_args.options.no_preflight, "Skip the free-space check (for fault tests)")
      ->group("");

  std::string validate_suite;
  std::vector<std::string> validate_sets;
  auto* validate = app.add_subcommand("validate", "Check a suite file and print it resolved");
  validate->add_option("suite", validate_suite, "Suite file, or a built-in suite name")->required();
  validate->add_option("--set", validate_sets, "Override a suite value: PATH=VALUE")->take_all();

  std::string list_target = ".";
  auto* list = app.add_subcommand("list", "Engines, backends, devices and the target's filesystem");
  list->add_option("--target", list_target, "Folder whose filesystem to describe")->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  if (*validate) return cmd_validate(validate_suite, validate_sets, std::cout, std::cerr);
  if (*list) return cmd_list(list_target, std::cout);

  std::unique_ptr<Comm> comm;
  Status cs = make_world_comm(&argc, &argv, &comm, &run_args.options.comm_reason);
  if (!cs.ok()) {
    std::cerr << "iofab: " << cs.message() << "\n";
    return 3;
  }
  run_args.options.command_line = command_line;
  return cmd_run(*comm, run_args, std::cout, std::cerr);
}
