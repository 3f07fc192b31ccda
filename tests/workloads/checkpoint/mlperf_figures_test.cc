// Checkpoint throughput by DLIO's formula (the mean of each checkpoint's rate, what mlpstorage
// publishes) beside iofab's (size over the mean duration), on hand-computed numbers.
#include "workloads/checkpoint/mlperf_figures.h"

#include <gtest/gtest.h>

namespace iofab {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

TEST(MlperfFigures, TwoSavesOfOneHundredGibPartByFormula) {
  // 100 GiB saved in 10 s and in 40 s: DLIO (10 + 2.5) / 2 = 6.25 GiB/s; iofab 100 / 25 = 4.0.
  const std::vector<double> d = {10.0, 40.0};
  EXPECT_DOUBLE_EQ(mean_of_rates_gib_per_s(100 * kGiB, d), 6.25);
  EXPECT_DOUBLE_EQ(rate_of_mean_gib_per_s(100 * kGiB, d), 4.0);
  EXPECT_DOUBLE_EQ(mean_seconds(d), 25.0);
}

TEST(MlperfFigures, EqualDurationsAgree) {
  // 3 GiB in 1.5 s each time: 2 GiB/s both ways.
  const std::vector<double> d = {1.5, 1.5, 1.5};
  EXPECT_DOUBLE_EQ(mean_of_rates_gib_per_s(3 * kGiB, d), 2.0);
  EXPECT_DOUBLE_EQ(rate_of_mean_gib_per_s(3 * kGiB, d), 2.0);
}

TEST(MlperfFigures, UntimedSavesAreLeftOutNotDividedBy) {
  // A 0 s entry (rank 0 wrote nothing) would be an infinite rate in DLIO: left out.
  EXPECT_DOUBLE_EQ(mean_of_rates_gib_per_s(8 * kGiB, {0.0, 4.0}), 2.0);
  EXPECT_DOUBLE_EQ(mean_of_rates_gib_per_s(8 * kGiB, {0.0}), 0.0);
  EXPECT_DOUBLE_EQ(mean_of_rates_gib_per_s(8 * kGiB, {}), 0.0);
  EXPECT_DOUBLE_EQ(rate_of_mean_gib_per_s(8 * kGiB, {}), 0.0);
  EXPECT_DOUBLE_EQ(mean_seconds({}), 0.0);
}

TEST(MlperfFigures, MeanOfRatesIsNeverBelowRateOfMean) {
  // Jensen: for any durations the mean of rates >= the rate of the mean; 1 GiB in 1, 2 and 5 s:
  // (1 + 0.5 + 0.2) / 3 = 0.5667 against 1 / (8 / 3) = 0.375.
  const std::vector<double> d = {1.0, 2.0, 5.0};
  EXPECT_NEAR(mean_of_rates_gib_per_s(kGiB, d), 1.7 / 3, 1e-12);
  EXPECT_NEAR(rate_of_mean_gib_per_s(kGiB, d), 0.375, 1e-12);
}

}  // namespace
}  // namespace iofab
