// The checkpoint budget: pure formulas from DESIGN.md ("The numbers it
// checks against"), shared by the checkpoint and restore phases and by
// `iofab plan`. No I/O, no state: every figure a report or a plan prints
// comes from here, so the worked numbers are unit-tested in one place.
//
// The 5% rule: the time training is stalled by a checkpoint must not exceed
// budget_fraction x interval. A run measures a scaled-down checkpoint and
// projects to full size assuming the measured aggregate bandwidth holds at
// scale: projected stall = full bytes / measured bytes/s.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>

namespace iofab {

// About 14 bytes per parameter: bf16 weights 2 + fp32 master weights 4 + Adam moments 4 + 4.
inline constexpr double kDefaultBytesPerParam = 14;
inline constexpr double kDefaultBudgetFraction = 0.05;
inline constexpr unsigned kDefaultFanout = 8;

// The ranges suites and `iofab plan` both accept, so a plan never computes what no suite could run (and
// never prints inf or NaN): a parameter count from 1 to 1e15, bytes per parameter from 0.001 to 1e6
// (their product stays far below a double's range), an interval from 1 ms to a year, a budget fraction
// from 1e-6 to 1, a restore fanout from 1 to 65536.
inline constexpr double kMinParams = 1;
inline constexpr double kMaxParams = 1e15;
inline constexpr double kMinBytesPerParam = 0.001;
inline constexpr double kMaxBytesPerParam = 1e6;
inline constexpr double kMinIntervalSeconds = 1e-3;
inline constexpr double kMaxIntervalSeconds = 365.0 * 24 * 3600;
inline constexpr double kMinBudgetFraction = 1e-6;
inline constexpr unsigned kMaxFanout = 65536;
inline constexpr double kMinWriterFraction = 1e-9;

// params x bytes_per_param: 175e9 x 14 = 2.45e12 bytes.
double checkpoint_bytes(double params, double bytes_per_param = kDefaultBytesPerParam);
// budget_fraction x interval: 0.05 x 3600 s = 180 s.
double allowed_stall_seconds(double interval_s, double budget_fraction = kDefaultBudgetFraction);
// Bytes/s that moves bytes within seconds: 2.45e12 B / 180 s = 13.6e9 B/s. Infinity when seconds is 0.
double required_bytes_per_s(double bytes, double seconds);
// full bytes / measured bytes/s; infinity when nothing was measured (0 bytes/s).
double projected_seconds(double full_bytes, double measured_bytes_per_s);
// allowed / projected: >= 1 passes. 0 when projected is infinite or allowed is 0.
double budget_margin(double allowed_s, double projected_s);
// Every rank reads on restore: fanout x the bytes written (8x by default).
double restore_read_bytes(double checkpoint_bytes, unsigned fanout = kDefaultFanout);

// One verdict against a budget: what is allowed, what was measured on the
// scaled run, and what the full-size model would take.
struct BudgetVerdict {
  double allowed_seconds = 0;       // the budget
  double measured_seconds = 0;      // as run (scaled size)
  double measured_bytes = 0;        // bytes moved in measured_seconds
  double full_bytes = 0;            // the full-size model's bytes for the same step
  double required_bytes_per_s = 0;  // full_bytes / allowed_seconds
  double measured_bytes_per_s = 0;  // measured_bytes / measured_seconds
  double projected_seconds = 0;     // full_bytes / measured_bytes_per_s
  double margin = 0;                // allowed / projected
  bool passed = false;              // margin >= 1
};

BudgetVerdict evaluate_budget(double allowed_seconds, double measured_seconds, double measured_bytes,
                              double full_bytes);
// {"allowed_seconds", ..., "passed"} for a report's details.
nlohmann::json to_json(const BudgetVerdict& v);

// `iofab plan`: what a model needs from storage.
struct CheckpointPlanInput {
  double params = 0;
  double bytes_per_param = kDefaultBytesPerParam;
  double interval_s = 3600;
  double budget_fraction = kDefaultBudgetFraction;
  unsigned fanout = kDefaultFanout;
  double gpus = 0;              // 0: no per-GPU shares
  double writer_fraction = 1;   // of the GPUs that write (1/8 when one data-parallel replica writes)
  double restore_budget_s = 0;  // 0: restore in the same time as the allowed stall
};

struct CheckpointPlan {
  CheckpointPlanInput in;
  double checkpoint_bytes = 0;
  double allowed_stall_seconds = 0;
  double required_write_bytes_per_s = 0;
  double restore_read_bytes = 0;
  double restore_seconds = 0;  // restore_budget, or the allowed stall
  double required_restore_bytes_per_s = 0;
  double writers = 0;                       // gpus x writer_fraction (0 without gpus)
  double per_writer_write_bytes_per_s = 0;  // required write bw / writers
  double per_gpu_read_bytes_per_s = 0;      // required restore bw / gpus
  double per_writer_checkpoint_bytes = 0;   // checkpoint bytes / writers
};

CheckpointPlan make_checkpoint_plan(const CheckpointPlanInput& in);
nlohmann::json to_json(const CheckpointPlan& p);

}  // namespace iofab
