#include "workloads/checkpoint/mlperf_figures.h"

namespace iofab {

namespace {
constexpr double kGiB = 0x1p30;
}  // namespace

double mean_of_rates_gib_per_s(double bytes, const std::vector<double>& seconds) {
  double sum = 0;
  double n = 0;
  for (double s : seconds) {
    if (s <= 0) continue;
    sum += bytes / kGiB / s;
    n += 1;
  }
  return n > 0 ? sum / n : 0.0;
}

double mean_seconds(const std::vector<double>& seconds) {
  double sum = 0;
  for (double s : seconds) sum += s;
  return seconds.empty() ? 0.0 : sum / static_cast<double>(seconds.size());
}

double rate_of_mean_gib_per_s(double bytes, const std::vector<double>& seconds) {
  const double mean = mean_seconds(seconds);
  return mean > 0 ? bytes / kGiB / mean : 0.0;
}

}  // namespace iofab
