#include "workloads/dataset/dataset_params.h"

#include <cmath>
#include <string>

#include "harness/phase/params.h"

namespace iofab {

void read_sample_params(ParamReader& r, DatasetSpec* spec) {
  DatasetSpec& ds = *spec;
  const double n = r.count("num_samples", 4096, 1, 1e9);
  if (std::floor(n) != n) r.fail("num_samples", "must be a whole number of samples");
  ds.num_samples = static_cast<uint64_t>(n);
  ds.sample_size = r.size("sample_size", 128ULL << 10, 1, kMaxSampleSize);
  const std::string dist =
      r.choice("sample_size_distribution", "fixed", {"fixed", "normal", "lognormal", "dlio_product"});
  if (!parse_distribution(dist, &ds.distribution)) ds.distribution = SizeDistribution::kFixed;
  ds.sample_size_stdev = r.size("sample_size_stdev", 0, 0, kMaxSampleSize);
  ds.sample_size_min = r.size("sample_size_min", 1, 1, kMaxSampleSize);
  ds.sample_size_max = r.size("sample_size_max", 0, 0, kMaxSampleSize);
  ds.seed = static_cast<uint64_t>(r.integer("seed", 1, 0, INT64_MAX));
}

void check_sample_params(ParamReader& r, const DatasetSpec& ds) {
  if (ds.distribution == SizeDistribution::kFixed) {
    if (ds.sample_size_stdev != 0) {
      r.fail("sample_size_stdev", "applies only to a normal, lognormal or dlio_product distribution");
    }
  } else if (ds.sample_size_stdev == 0) {
    r.fail("sample_size_stdev",
           std::string("must be > 0 for a ") + distribution_name(ds.distribution) + " distribution");
  }
  if (ds.sample_size_min > ds.sample_size) {
    r.fail("sample_size_min", "must be <= sample_size (" + std::to_string(ds.sample_size) + ")");
  }
  if (ds.sample_size_max != 0 && ds.sample_size_max < ds.sample_size) {
    r.fail("sample_size_max",
           "must be >= sample_size (" + std::to_string(ds.sample_size) + "), or 0 for automatic");
  }
}

}  // namespace iofab
