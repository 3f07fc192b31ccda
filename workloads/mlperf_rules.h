// MLPerf Storage's training rules and figures, as arithmetic: the minimum
// dataset size (Rules.md 3.1.2, recomputed by the submission checker) and
// the figures DLIO prints for a training run, so a train_read report can
// state them beside iofab's own definitions.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace iofab {

// MLPerf's constants: an epoch of at least 500 steps, a dataset of at least 5x the hosts' memory.
constexpr uint64_t kMlperfMinStepsPerEpoch = 500;
constexpr uint64_t kMlperfHostMemoryMultiplier = 5;

struct MlperfDatasetRule {
  uint64_t steps_samples = 0;   // 500 x batch x accelerators
  uint64_t memory_samples = 0;  // 5 x the hosts' memory / record length, rounded up
  uint64_t min_samples = 0;     // the larger of the two
  uint64_t min_files = 0;       // min_samples / samples per file, rounded up
  double min_bytes = 0;         // min_samples x record length
};

// record_length: the mean sample size in bytes (> 0); host_memory_bytes: one entry per host.
MlperfDatasetRule mlperf_min_dataset(uint64_t batch_size, uint64_t accelerators,
                                     const std::vector<uint64_t>& host_memory_bytes, double record_length,
                                     uint64_t samples_per_file);

// "needs >= 3500 samples (477.9 GiB, 3500 files): the larger of 500 steps x batch 7 x 1 accelerator =
// 3500 and 5 x 23.5 GiB of host memory / 146600628 bytes a sample = 863; given 14 samples (1.67 GiB)":
// the rule's numbers in words.
std::string describe_mlperf_min_dataset(const MlperfDatasetRule& rule, uint64_t batch_size,
                                        uint64_t accelerators, uint64_t host_memory_total,
                                        double record_length, uint64_t given_samples, double given_bytes);

// One rank's epoch as DLIO measures it.
struct MlperfRankEpoch {
  double au = 0;  // compute / wall, 0..1
  uint64_t samples = 0;
  double seconds = 0;  // the rank's epoch time
};

// DLIO's training figures: per epoch, the AU is the mean of the ranks' AUs and the throughput is the sum
// of the ranks' samples / seconds; the run's figures are the means over epochs, and "MB/s" is that
// throughput x the mean record length / 2^20 (MiB/s).
struct MlperfTrainFigures {
  double au = 0;
  double samples_per_s = 0;
  double mib_per_s = 0;
};
MlperfTrainFigures mlperf_train_figures(const std::vector<std::vector<MlperfRankEpoch>>& epochs,
                                        double record_length);

}  // namespace iofab
