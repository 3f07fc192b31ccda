// MLPerf Storage's minimum dataset size (Rules.md 3.1.2) and DLIO's training figures, by hand-computed
// numbers.
#include "workloads/mlperf_rules.h"

#include <gtest/gtest.h>

namespace iofab {
namespace {

constexpr uint64_t kGiB = 1ULL << 30;

TEST(MlperfRules, StepsBoundWinsOnASmallHost) {
  // unet3d: batch 7, 8 accelerators, one host of 1 GiB, 146,600,628-byte records.
  const MlperfDatasetRule r = mlperf_min_dataset(7, 8, {kGiB}, 146600628.0, 1);
  EXPECT_EQ(r.steps_samples, 28000u);  // 500 x 7 x 8
  EXPECT_EQ(r.memory_samples, 37u);    // ceil(5 x 2^30 / 146600628) = ceil(36.62)
  EXPECT_EQ(r.min_samples, 28000u);
  EXPECT_EQ(r.min_files, 28000u);
  EXPECT_DOUBLE_EQ(r.min_bytes, 28000.0 * 146600628.0);
}

TEST(MlperfRules, MemoryBoundWinsOnBigHostsAndCountsEveryHost) {
  // Two hosts of 256 GiB, batch 1, 2 accelerators, records of exactly 1 MiB:
  // 5 x 512 GiB / 1 MiB = 2,621,440 samples; steps give only 1,000.
  const MlperfDatasetRule r = mlperf_min_dataset(1, 2, {256 * kGiB, 256 * kGiB}, 1048576.0, 1);
  EXPECT_EQ(r.steps_samples, 1000u);
  EXPECT_EQ(r.memory_samples, 2621440u);
  EXPECT_EQ(r.min_samples, 2621440u);
  EXPECT_DOUBLE_EQ(r.min_bytes, 2560.0 * kGiB);
}

TEST(MlperfRules, FilesRoundUpBySamplesPerFile) {
  // resnet50: batch 400, 1 accelerator: 200,000 samples at 1,251 a file is 159.87 -> 160 files.
  const MlperfDatasetRule r = mlperf_min_dataset(400, 1, {0}, 114660.07, 1251);
  EXPECT_EQ(r.min_samples, 200000u);
  EXPECT_EQ(r.min_files, 160u);
}

TEST(MlperfRules, DescriptionNamesRequiredAndGiven) {
  const MlperfDatasetRule r = mlperf_min_dataset(7, 1, {kGiB}, 1048576.0, 1);
  const std::string s = describe_mlperf_min_dataset(r, 7, 1, kGiB, 1048576.0, 24, 24.0 * 1048576.0);
  EXPECT_NE(s.find("needs >= 5120 samples"), std::string::npos) << s;  // 5 x 1 GiB / 1 MiB beats 3,500
  EXPECT_NE(s.find("= 3500"), std::string::npos) << s;
  EXPECT_NE(s.find("given 24 samples"), std::string::npos) << s;
}

TEST(MlperfRules, TrainFiguresAverageAuOverRanksAndSumThroughput) {
  // Epoch 0: ranks at AU 0.9 and 0.7, 100 samples in 10 s and 50 in 5 s -> AU 0.8, 20 samples/s.
  // Epoch 1: ranks at AU 1.0 and 0.6, 40 samples in 4 s each -> AU 0.8, 20 samples/s.
  const std::vector<std::vector<MlperfRankEpoch>> epochs = {
      {{0.9, 100, 10.0}, {0.7, 50, 5.0}},
      {{1.0, 40, 4.0}, {0.6, 40, 4.0}},
  };
  const MlperfTrainFigures f = mlperf_train_figures(epochs, 2.0 * 1048576.0);
  EXPECT_DOUBLE_EQ(f.au, 0.8);
  EXPECT_DOUBLE_EQ(f.samples_per_s, 20.0);
  EXPECT_DOUBLE_EQ(f.mib_per_s, 40.0);  // 20 samples/s x 2 MiB, in MiB/s as DLIO's "MB/s"
}

TEST(MlperfRules, NoEpochsGiveZeros) {
  const MlperfTrainFigures f = mlperf_train_figures({}, 1.0);
  EXPECT_EQ(f.au, 0.0);
  EXPECT_EQ(f.samples_per_s, 0.0);
}

}  // namespace
}  // namespace iofab
