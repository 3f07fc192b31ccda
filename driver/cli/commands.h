// The subcommands, each returning the process exit code.
#pragma once

#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "harness/comm/comm.h"
#include "driver/cli/live_flags.h"
#include "driver/runner/report_courier.h"
#include "driver/runner/runner.h"
#include "driver/targets/clean_target.h"

namespace iofab {

struct RunArgs {
  RunOptions options;
  std::string target;  // empty: the suite's or the default
  std::string rank_timeout;         // a duration; empty and not given: the default
  bool rank_timeout_given = false;  // --rank-timeout was on the command line (then empty is refused)
  std::string out;
  int repeat = 0;           // > 0: run the suite this many times, report means (driver/runner/repeat.h)
  bool no_warmup = false;   // with repeat: no warm-up run first
  // --output FORMAT=PATH, as given: also write the report in that format there (run_outputs.h); junit and
  // openmetrics are the paths of its aliases, --junit and --openmetrics.
  std::vector<std::string> outputs;
  std::string junit;
  std::string openmetrics;
  double scale = 0;         // > 0: every checkpoint phase's scale (--scale)
  // Multi-rank runs: the helper process that writes the report (driver/runner/report_courier.h);
  // null: the report is written by this process.
  ReportCourier* courier = nullptr;
  LiveFlags live_flags;  // --progress-every, --live-interval as typed (driver/cli/live_flags.h)
};

int cmd_run(Comm& comm, RunArgs& args, std::ostream& out, std::ostream& err);
// target: the one the run would use (--target), checked against the suite (driver/targets/run_target.h);
// empty: the suite's own "target", if any.
int cmd_validate(const std::string& suite, const std::vector<std::string>& sets, const std::string& target,
                 std::ostream& out, std::ostream& err);
// as_json: one JSON object for machines instead of the text (docs/discovery.md).
int cmd_list(const std::string& target, bool as_json, std::ostream& out);

// `iofab clean`: lists the run folders under target that no live run holds
// (left by a killed run) and removes them: with yes, or after a "y" on in when
// interactive (a terminal). Otherwise it only lists them. Folders of runs with
// --keep are left unless include_kept. Exit 0, 2 for a target that cannot be
// read, 3 when a removal failed. Each kind of target cleans its own way (driver/targets/).
int cmd_clean(const CleanArgs& args, bool interactive, std::istream& in, std::ostream& out,
              std::ostream& err);

// `iofab plan`: what a model's checkpoints need from storage (DESIGN.md, the
// 5% rule), from a parameter count or from a model (then every rank's bytes,
// workloads/checkpoint/tensor_plan.h). Values as typed; a bad one exits 2
// naming its option (and a model's field).
struct PlanArgs {
  std::string params;   // a count like 175e9; or a model:
  std::string preset;   // a preset's name (workloads/checkpoint/presets.h)
  std::string model;    // a JSON object of model fields, over the preset's when both
  std::string tensors;  // with a model: list this rank's tensors
  std::string replica_writer;  // with a model: first (default), spread or all
  std::string bytes_per_param = "14";
  bool bytes_per_param_given = false;  // only with params
  std::string interval = "1h";
  std::string budget_fraction = "0.05";
  std::string fanout = "8";
  std::string gpus;                    // empty: no per-GPU shares
  std::string writer_fraction = "1";   // of the GPUs that write a checkpoint
  bool writer_fraction_given = false;  // only with params: a model's plan says who writes
  std::string restore_budget;          // empty: restore within the allowed stall
  bool json = false;
};
int cmd_plan(const PlanArgs& args, std::ostream& out, std::ostream& err);

}  // namespace iofab
