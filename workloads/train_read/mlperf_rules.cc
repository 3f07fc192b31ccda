#include "workloads/train_read/mlperf_rules.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace iofab {

namespace {

constexpr double kRulesGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

MlperfDatasetRule mlperf_min_dataset(uint64_t batch_size, uint64_t accelerators,
                                     const std::vector<uint64_t>& host_memory_bytes, double record_length,
                                     uint64_t samples_per_file) {
  MlperfDatasetRule r;
  r.steps_samples = kMlperfMinStepsPerEpoch * batch_size * accelerators;
  double memory = 0;
  for (uint64_t m : host_memory_bytes) memory += static_cast<double>(m);
  if (record_length > 0) {
    r.memory_samples = static_cast<uint64_t>(
        std::ceil(memory * static_cast<double>(kMlperfHostMemoryMultiplier) / record_length));
  }
  r.min_samples = std::max(r.steps_samples, r.memory_samples);
  const uint64_t per = std::max<uint64_t>(samples_per_file, 1);
  r.min_files = (r.min_samples + per - 1) / per;
  r.min_bytes = static_cast<double>(r.min_samples) * record_length;
  return r;
}

std::string describe_mlperf_min_dataset(const MlperfDatasetRule& rule, uint64_t batch_size,
                                        uint64_t accelerators, uint64_t host_memory_total,
                                        double record_length, uint64_t given_samples, double given_bytes) {
  return "needs >= " + std::to_string(rule.min_samples) + " samples (" +
         fixed(rule.min_bytes / kRulesGiB, 1) + " GiB, " + std::to_string(rule.min_files) +
         " files): the larger of " + std::to_string(kMlperfMinStepsPerEpoch) + " steps x batch " +
         std::to_string(batch_size) + " x " + std::to_string(accelerators) +
         (accelerators == 1 ? " accelerator" : " accelerators") + " = " + std::to_string(rule.steps_samples) +
         " and " + std::to_string(kMlperfHostMemoryMultiplier) + " x " +
         fixed(static_cast<double>(host_memory_total) / kRulesGiB, 1) + " GiB of host memory / " +
         fixed(record_length, 0) + " bytes a sample = " + std::to_string(rule.memory_samples) + "; given " +
         std::to_string(given_samples) + " samples (" + fixed(given_bytes / kRulesGiB, 2) + " GiB)";
}

double mlperf_rank_throughput(const MlperfRankEpoch& r) {
  const double time = r.end_s - r.first_step_end_s;
  if (r.steps < 3 || time <= 0) return 0;
  return static_cast<double>(r.steps - 2) * static_cast<double>(r.batch_size) / time;
}

double mlperf_rank_au(const MlperfRankEpoch& r) {
  const double time = r.end_s - r.first_step_end_s;
  if (r.compute_s <= 0 || r.steps < 2 || time <= 0) return r.au;
  return std::max(0.0, r.compute_s - r.first_compute_s) / time;
}

MlperfTrainFigures mlperf_train_figures(const std::vector<std::vector<MlperfRankEpoch>>& epochs,
                                        double record_length) {
  MlperfTrainFigures f;
  if (epochs.empty()) return f;
  for (const auto& ranks : epochs) {
    double au = 0, throughput = 0;
    for (const auto& r : ranks) {
      au += mlperf_rank_au(r);
      throughput += mlperf_rank_throughput(r);
    }
    if (!ranks.empty()) f.au += au / static_cast<double>(ranks.size());
    f.samples_per_s += throughput;
  }
  const auto n = static_cast<double>(epochs.size());
  f.au /= n;
  f.samples_per_s /= n;
  f.mib_per_s = f.samples_per_s * record_length / kMiB;
  return f;
}

}  // namespace iofab
