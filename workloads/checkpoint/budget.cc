#include "workloads/checkpoint/budget.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace iofab {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

// JSON has no infinity: an unbounded figure is written as null.
nlohmann::json finite_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}
}  // namespace

double checkpoint_bytes(double params, double bytes_per_param) { return params * bytes_per_param; }

double allowed_stall_seconds(double interval_s, double budget_fraction) {
  return budget_fraction * interval_s;
}

double required_bytes_per_s(double bytes, double seconds) { return seconds > 0 ? bytes / seconds : kInf; }

double projected_seconds(double full_bytes, double measured_bytes_per_s) {
  if (full_bytes <= 0) return 0;
  return measured_bytes_per_s > 0 ? full_bytes / measured_bytes_per_s : kInf;
}

double budget_margin(double allowed_s, double projected_s) {
  if (!std::isfinite(projected_s) || allowed_s <= 0) return 0;
  // Nothing to move takes no time: any budget holds it.
  if (projected_s <= 0) return kInf;
  return allowed_s / projected_s;
}

double restore_read_bytes(double checkpoint_bytes, unsigned fanout) { return checkpoint_bytes * fanout; }

BudgetVerdict evaluate_budget(double allowed_seconds, double measured_seconds, double measured_bytes,
                              double full_bytes) {
  BudgetVerdict v;
  v.allowed_seconds = allowed_seconds;
  v.measured_seconds = measured_seconds;
  v.measured_bytes = measured_bytes;
  v.full_bytes = full_bytes;
  v.required_bytes_per_s = required_bytes_per_s(full_bytes, allowed_seconds);
  v.measured_bytes_per_s = measured_seconds > 0 ? measured_bytes / measured_seconds : 0;
  v.projected_seconds = projected_seconds(full_bytes, v.measured_bytes_per_s);
  v.margin = budget_margin(allowed_seconds, v.projected_seconds);
  v.passed = v.margin >= 1;
  return v;
}

nlohmann::json to_json(const BudgetVerdict& v) {
  return {{"allowed_seconds", v.allowed_seconds},
          {"measured_seconds", v.measured_seconds},
          {"measured_bytes", v.measured_bytes},
          {"full_bytes", v.full_bytes},
          {"required_bytes_per_s", finite_or_null(v.required_bytes_per_s)},
          {"measured_bytes_per_s", v.measured_bytes_per_s},
          {"projected_seconds", finite_or_null(v.projected_seconds)},
          {"budget_margin", finite_or_null(v.margin)},
          {"passed", v.passed}};
}

CheckpointPlan make_checkpoint_plan(const CheckpointPlanInput& in) {
  CheckpointPlan p;
  p.in = in;
  p.checkpoint_bytes = checkpoint_bytes(in.params, in.bytes_per_param);
  p.allowed_stall_seconds = allowed_stall_seconds(in.interval_s, in.budget_fraction);
  p.required_write_bytes_per_s = required_bytes_per_s(p.checkpoint_bytes, p.allowed_stall_seconds);
  p.restore_read_bytes = restore_read_bytes(p.checkpoint_bytes, in.fanout);
  p.restore_seconds = in.restore_budget_s > 0 ? in.restore_budget_s : p.allowed_stall_seconds;
  p.required_restore_bytes_per_s = required_bytes_per_s(p.restore_read_bytes, p.restore_seconds);
  if (in.gpus > 0) {
    p.writers = std::max(1.0, std::round(in.gpus * in.writer_fraction));
    p.per_writer_write_bytes_per_s = p.required_write_bytes_per_s / p.writers;
    p.per_writer_checkpoint_bytes = p.checkpoint_bytes / p.writers;
    p.per_gpu_read_bytes_per_s = p.required_restore_bytes_per_s / in.gpus;
  }
  return p;
}

nlohmann::json to_json(const CheckpointPlan& p) {
  nlohmann::json j = {
      {"params", p.in.params},
      {"bytes_per_param", p.in.bytes_per_param},
      {"interval_seconds", p.in.interval_s},
      {"budget_fraction", p.in.budget_fraction},
      {"fanout", p.in.fanout},
      {"checkpoint_bytes", p.checkpoint_bytes},
      {"allowed_stall_seconds", p.allowed_stall_seconds},
      {"required_write_bytes_per_s", finite_or_null(p.required_write_bytes_per_s)},
      {"restore_read_bytes", p.restore_read_bytes},
      {"restore_seconds", p.restore_seconds},
      {"restore_seconds_source", p.in.restore_budget_s > 0 ? "restore_budget" : "allowed_stall"},
      {"required_restore_bytes_per_s", finite_or_null(p.required_restore_bytes_per_s)}};
  if (p.in.gpus > 0) {
    j["gpus"] = p.in.gpus;
    j["writer_fraction"] = p.in.writer_fraction;
    j["writers"] = p.writers;
    j["per_writer_checkpoint_bytes"] = p.per_writer_checkpoint_bytes;
    j["per_writer_write_bytes_per_s"] = finite_or_null(p.per_writer_write_bytes_per_s);
    j["per_gpu_read_bytes_per_s"] = finite_or_null(p.per_gpu_read_bytes_per_s);
  }
  return j;
}

}  // namespace iofab
