// What the DataLoader profile's own work costs (torch_sample_io.h's real syscalls and copies), measured
// by `iofab calibrate` on the same warm files as the real DataLoader, so the profile spins only the
// difference (LoaderCalibration::spin).
#pragma once

#include <string>
#include <vector>

#include "workloads/calibration/loader_fit.h"

namespace iofab {

// paths: files of one size, warm in the page cache; batch: samples per batch. CPU seconds.
Status measure_native_loader_point(const std::vector<std::string>& paths, uint64_t size, uint64_t batch,
                                   LoaderPoint* out);
// A worker thread's start and end (the profile's workers are threads): wall seconds, the median of a few.
double measure_native_worker_start();

}  // namespace iofab
