// The worked numbers of DESIGN.md ("The numbers it checks against"), to the digit.
#include "workloads/checkpoint/budget.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "harness/core/units.h"

namespace iofab {
namespace {

TEST(CheckpointBudget, FourteenBytesPerParameter) {
  EXPECT_EQ(kDefaultBytesPerParam, 14);
  EXPECT_EQ(checkpoint_bytes(175e9), 2.45e12);
  EXPECT_EQ(checkpoint_bytes(175e9), 2'450'000'000'000.0);
  EXPECT_EQ(checkpoint_bytes(500e9), 7.0e12);
  // Linear in parameters, and bytes_per_param is a knob.
  EXPECT_EQ(checkpoint_bytes(350e9), 2 * checkpoint_bytes(175e9));
  EXPECT_EQ(checkpoint_bytes(175e9, 2), 3.5e11);
}

TEST(CheckpointBudget, FivePercentOfAnHourIs180Seconds) {
  EXPECT_EQ(kDefaultBudgetFraction, 0.05);
  EXPECT_EQ(allowed_stall_seconds(3600), 180);
  EXPECT_EQ(allowed_stall_seconds(3600, 0.10), 360);
  EXPECT_EQ(allowed_stall_seconds(1800), 90);
}

TEST(CheckpointBudget, HourlyGpt3NeedsThirteenPointSixGBPerSecond) {
  const double need = required_bytes_per_s(2.45e12, 180);
  EXPECT_DOUBLE_EQ(need, 2.45e12 / 180);
  EXPECT_NEAR(need, 13.6111e9, 1e5);
  EXPECT_EQ(std::round(need / 1e8) / 10, 13.6);  // 13.6e9, to the digit DESIGN.md gives
  EXPECT_EQ(units::format_rate(need), "13.6 GB/s");
  EXPECT_TRUE(std::isinf(required_bytes_per_s(1, 0)));
}

TEST(CheckpointBudget, EveryRankReadsEightTimesTheBytesWritten) {
  EXPECT_EQ(kDefaultFanout, 8u);
  EXPECT_EQ(restore_read_bytes(2.45e12), 1.96e13);
  EXPECT_EQ(restore_read_bytes(1000, 2), 2000);
  // Restoring in the same time needs 8x the write bandwidth.
  EXPECT_DOUBLE_EQ(required_bytes_per_s(restore_read_bytes(2.45e12), 180),
                   8 * required_bytes_per_s(2.45e12, 180));
}

TEST(CheckpointBudget, ProjectionAndMargin) {
  // 2 GB/s measured: a full GPT-3 checkpoint would stall 1225 s, 0.147 of the way to the 180 s budget.
  EXPECT_EQ(projected_seconds(2.45e12, 2e9), 1225);
  EXPECT_DOUBLE_EQ(budget_margin(180, 1225), 180.0 / 1225);
  EXPECT_TRUE(std::isinf(projected_seconds(2.45e12, 0)));
  EXPECT_EQ(budget_margin(180, std::numeric_limits<double>::infinity()), 0);
  EXPECT_EQ(budget_margin(0, 10), 0);
}

TEST(CheckpointBudget, VerdictFlipsWithTheInterval) {
  // A scaled run: 2.45e9 bytes (scale 1000) in 0.245 s is 10 GB/s measured; at full size 245 s.
  const BudgetVerdict hourly = evaluate_budget(allowed_stall_seconds(3600), 0.245, 2.45e9, 2.45e12);
  EXPECT_DOUBLE_EQ(hourly.measured_bytes_per_s, 10e9);
  EXPECT_DOUBLE_EQ(hourly.projected_seconds, 245);
  EXPECT_DOUBLE_EQ(hourly.required_bytes_per_s, 2.45e12 / 180);
  EXPECT_DOUBLE_EQ(hourly.margin, 180.0 / 245);
  EXPECT_FALSE(hourly.passed);
  const BudgetVerdict two_hourly = evaluate_budget(allowed_stall_seconds(7200), 0.245, 2.45e9, 2.45e12);
  EXPECT_DOUBLE_EQ(two_hourly.margin, 360.0 / 245);
  EXPECT_TRUE(two_hourly.passed);
  // Exactly at the budget passes.
  EXPECT_TRUE(evaluate_budget(180, 1.8, 2.45e10, 2.45e12).passed);
}

TEST(CheckpointBudget, VerdictJsonHasEveryFigure) {
  nlohmann::json j = to_json(evaluate_budget(180, 0.245, 2.45e9, 2.45e12));
  for (const char* k :
       {"allowed_seconds", "measured_seconds", "measured_bytes", "full_bytes", "required_bytes_per_s",
        "measured_bytes_per_s", "projected_seconds", "budget_margin", "passed"}) {
    EXPECT_TRUE(j.contains(k)) << k;
  }
  EXPECT_EQ(j["passed"], false);
  // Nothing measured: no infinity in JSON, a null instead.
  EXPECT_TRUE(to_json(evaluate_budget(180, 0, 0, 2.45e12))["projected_seconds"].is_null());
}

TEST(CheckpointBudget, PlanForGpt3On2000Gpus) {
  CheckpointPlanInput in;
  in.params = 175e9;
  in.gpus = 2000;
  const CheckpointPlan p = make_checkpoint_plan(in);
  EXPECT_EQ(p.checkpoint_bytes, 2.45e12);
  EXPECT_EQ(p.allowed_stall_seconds, 180);
  EXPECT_DOUBLE_EQ(p.required_write_bytes_per_s, 2.45e12 / 180);
  EXPECT_EQ(p.restore_read_bytes, 1.96e13);
  EXPECT_EQ(p.restore_seconds, 180);
  EXPECT_DOUBLE_EQ(p.required_restore_bytes_per_s, 1.96e13 / 180);
  EXPECT_EQ(p.writers, 2000);
  EXPECT_DOUBLE_EQ(p.per_writer_write_bytes_per_s, 2.45e12 / 180 / 2000);
  EXPECT_DOUBLE_EQ(p.per_gpu_read_bytes_per_s, 1.96e13 / 180 / 2000);
  EXPECT_EQ(p.per_writer_checkpoint_bytes, 1.225e9);

  in.params = 500e9;
  in.writer_fraction = 0.125;  // one data-parallel replica of eight writes
  in.restore_budget_s = 600;
  const CheckpointPlan q = make_checkpoint_plan(in);
  EXPECT_EQ(q.checkpoint_bytes, 7.0e12);
  EXPECT_EQ(q.writers, 250);
  EXPECT_EQ(q.restore_seconds, 600);
  EXPECT_DOUBLE_EQ(q.required_restore_bytes_per_s, 5.6e13 / 600);
  nlohmann::json j = to_json(q);
  EXPECT_EQ(j["checkpoint_bytes"], 7.0e12);
  EXPECT_EQ(j["restore_seconds_source"], "restore_budget");
}

}  // namespace
}  // namespace iofab
