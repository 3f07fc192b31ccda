// MLPerf Storage's minimum dataset size (mlcommons/storage Submission_guidelines.md, mlpstorage/rules.py
// calculate_training_data_size) and DLIO's training figures, by hand-computed numbers.
#include "workloads/train_read/mlperf_rules.h"

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
  // DLIO's per-rank throughput (argonne-lcf/dlio_benchmark, branch mlperf_storage_v2.0,
  // utils/statscounter.py compute_metrics_train, lines 404-412): (steps - 2) x batch / the time from the
  // first step's end to the last's; end_run sums the ranks and averages the epochs. Epoch 0: AU 0.9 and 0.7;
  // rank 0 takes 12 steps of batch 5, the first ending at 1 s, the last at 6 s: (12 - 2) x 5 / 5 = 10
  // samples/s; rank 1 takes 7 steps, 2 s to 7 s: 5 x 5 / 5 = 5 -> AU 0.8, 15. Epoch 1: AU 1.0 and 0.6; 22
  // steps from 0.5 s to 10.5 s: 20 x 5 / 10 = 10 each -> AU 0.8, 20. The run: AU 0.8, (15 + 20) / 2 = 17.5
  // samples/s. (Samples over the whole epoch, iofab's old figure, would give 60 / 6 + 35 / 7 = 15 and 110
  // / 10.5 x 2 = 20.95 instead.)
  const std::vector<std::vector<MlperfRankEpoch>> epochs = {
      {{.au = 0.9, .steps = 12, .batch_size = 5, .first_step_end_s = 1.0, .end_s = 6.0},
       {.au = 0.7, .steps = 7, .batch_size = 5, .first_step_end_s = 2.0, .end_s = 7.0}},
      {{.au = 1.0, .steps = 22, .batch_size = 5, .first_step_end_s = 0.5, .end_s = 10.5},
       {.au = 0.6, .steps = 22, .batch_size = 5, .first_step_end_s = 0.5, .end_s = 10.5}},
  };
  const MlperfTrainFigures f = mlperf_train_figures(epochs, 2.0 * 1048576.0);
  EXPECT_DOUBLE_EQ(f.au, 0.8);
  EXPECT_DOUBLE_EQ(f.samples_per_s, 17.5);
  EXPECT_DOUBLE_EQ(f.mib_per_s, 35.0);  // 17.5 samples/s x 2 MiB, in MiB/s as DLIO's "MB/second"
}

TEST(MlperfRules, DlioThroughputLeavesOutTwoStepsAndIsZeroBelowThree) {
  // Two steps: (2 - 2) x batch = 0, as DLIO prints for an epoch of two steps.
  EXPECT_EQ(mlperf_rank_throughput({.au = 1, .steps = 2, .batch_size = 7, .first_step_end_s = 1, .end_s = 2}),
            0.0);
  // Three steps of 7, 0.4 s from the first's end to the last's: 7 / 0.4 = 17.5.
  EXPECT_DOUBLE_EQ(
      mlperf_rank_throughput({.au = 1, .steps = 3, .batch_size = 7, .first_step_end_s = 0.6, .end_s = 1.0}),
      17.5);
}

TEST(MlperfRules, DlioAuLeavesOutTheFirstStepsComputeAndTime) {
  // 4 steps of 0.5 s compute; the first step's compute ends at 1.5 s (1.0 s of wait, then 0.5 s), the
  // last at 4.5 s: DLIO's AU is the compute of steps 2..4, 1.5 s, over 4.5 - 1.5 = 3.0 s: 0.5. Keeping
  // step 1's compute in the numerator (2.0 s / 3.0 s) would say 0.667.
  const MlperfRankEpoch r{.au = 0.99,
                          .steps = 4,
                          .batch_size = 7,
                          .first_step_end_s = 1.5,
                          .end_s = 4.5,
                          .compute_s = 2.0,
                          .first_compute_s = 0.5};
  EXPECT_DOUBLE_EQ(mlperf_rank_au(r), 0.5);
  EXPECT_DOUBLE_EQ(mlperf_train_figures({{r}}, 1.0).au, 0.5);
  // Every step computing back to back after the first: 1.0.
  EXPECT_DOUBLE_EQ(
      mlperf_rank_au(
          {.steps = 3, .first_step_end_s = 2, .end_s = 3, .compute_s = 1.5, .first_compute_s = 0.5}),
      1.0);
  // Compute not measured, or a single step: the AU given.
  EXPECT_DOUBLE_EQ(mlperf_rank_au({.au = 0.25, .steps = 4, .first_step_end_s = 1, .end_s = 2}), 0.25);
  EXPECT_DOUBLE_EQ(
      mlperf_rank_au(
          {.au = 0.25, .steps = 1, .first_step_end_s = 1, .end_s = 1, .compute_s = 1, .first_compute_s = 1}),
      0.25);
}

TEST(MlperfRules, NoEpochsGiveZeros) {
  const MlperfTrainFigures f = mlperf_train_figures({}, 1.0);
  EXPECT_EQ(f.au, 0.0);
  EXPECT_EQ(f.samples_per_s, 0.0);
}

}  // namespace
}  // namespace iofab
