// MLPerf Storage's training rules and figures, as arithmetic: the minimum
// dataset size (mlcommons/storage Submission_guidelines.md; mlpstorage/rules.py
// calculate_training_data_size computes it for a run) and
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
  double au = 0;                // iofab's: compute / wall, 0..1 (the AU when compute_s is not given)
  uint64_t steps = 0;           // batches consumed
  uint64_t batch_size = 0;      // samples a step
  double first_step_end_s = 0;  // the first step's compute end, from the epoch's start
  double end_s = 0;             // the last step's compute end, from the epoch's start
  double compute_s = 0;         // every step's compute, summed
  double first_compute_s = 0;   // the first step's compute
};

// A rank's AU in an epoch as DLIO computes it (statscounter.py compute_metrics_train, lines 404-411, with
// metric_exclude_start_steps 1, utils/config.py line 72): the compute of steps 2.. over the time from the
// first step's compute end to the last's, so the first step's compute leaves the numerator as its time
// leaves the denominator. r.au when compute_s is 0 (not measured) or there is no time after step 1.
double mlperf_rank_au(const MlperfRankEpoch& r);

// A rank's throughput in an epoch as DLIO computes it (argonne-lcf/dlio_benchmark, branch
// mlperf_storage_v2.0, utils/statscounter.py compute_metrics_train, lines 404-412):
// (steps - 2) x batch_size / total_time, where total_time is the block's time less the first step's
// (metric_exclude_start_steps 1): from the first step's compute end to the last one's. 0 with fewer
// than 3 steps, as DLIO's is (<= 0).
double mlperf_rank_throughput(const MlperfRankEpoch& r);

// DLIO's training figures: per epoch, the AU is the mean of the ranks' AUs and the throughput is the sum
// of the ranks' mlperf_rank_throughput (statscounter.py end_run: allreduce, then the mean over epochs);
// "MB/s" is that throughput x the mean record length / 2^20 (MiB/s).
struct MlperfTrainFigures {
  double au = 0;
  double samples_per_s = 0;
  double mib_per_s = 0;
};
MlperfTrainFigures mlperf_train_figures(const std::vector<std::vector<MlperfRankEpoch>>& epochs,
                                        double record_length);

}  // namespace iofab
