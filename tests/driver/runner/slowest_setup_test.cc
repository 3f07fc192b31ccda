// phases[].setup_seconds: a phase adds up its untimed setup before each timed window (add_setup), and the
// report takes the slowest rank's (slowest_setup): every rank waited at the barrier for it.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "driver/runner/phase_settle.h"
#include "harness/phase/phase.h"

namespace iofab::testing {
namespace {

TEST(SetupSeconds, EachWindowsSetupAddsUp) {
  PhaseResult r;
  EXPECT_FALSE(r.setup_seconds.has_value());
  add_setup(&r, 1'000'000'000, 3'500'000'000);  // 2.5 s before the first window
  add_setup(&r, 4'000'000'000, 4'250'000'000);  // 0.25 s before the second
  ASSERT_TRUE(r.setup_seconds.has_value());
  EXPECT_DOUBLE_EQ(*r.setup_seconds, 2.75);
  // A window that began before the phase's clock (no setup): nothing added, never negative.
  PhaseResult none;
  add_setup(&none, 5, 3);
  ASSERT_TRUE(none.setup_seconds.has_value());
  EXPECT_EQ(*none.setup_seconds, 0);
}

TEST(SetupSeconds, TheReportTakesTheSlowestRanks) {
  std::vector<PhaseReport> phases(3);
  phases[1].setup_seconds = 9;  // rank 0's own, from before the gather: replaced
  const std::vector<std::vector<std::optional<double>>> per_rank = {
      {1.0, std::nullopt, 0.5},
      {2.5, std::nullopt},  // a rank that knows fewer phases (its report part was cut short)
      {0.1, std::nullopt, 0.7},
  };
  slowest_setup(per_rank, &phases);
  ASSERT_TRUE(phases[0].setup_seconds.has_value());
  EXPECT_EQ(*phases[0].setup_seconds, 2.5);
  EXPECT_FALSE(phases[1].setup_seconds.has_value());  // no rank had a timed window
  ASSERT_TRUE(phases[2].setup_seconds.has_value());
  EXPECT_EQ(*phases[2].setup_seconds, 0.7);
}

}  // namespace
}  // namespace iofab::testing
