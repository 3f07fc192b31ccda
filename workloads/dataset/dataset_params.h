// The dataset's sample count and size distribution as a suite gives them, read the same way by every
// phase that generates a dataset of samples (train_read, prepare): num_samples, sample_size,
// sample_size_distribution, sample_size_stdev, sample_size_min, sample_size_max, seed.
#pragma once

#include "workloads/dataset/dataset.h"

namespace iofab {

class ParamReader;

// Reads the keys above into spec (errors go to r), in that order.
void read_sample_params(ParamReader& r, DatasetSpec* spec);
// Checks how they relate (a stdev only with a distribution, min <= size <= max); errors name the key.
// Call after every key is read, so the errors of single keys come first; then resolve_size_bounds().
void check_sample_params(ParamReader& r, const DatasetSpec& spec);

}  // namespace iofab
