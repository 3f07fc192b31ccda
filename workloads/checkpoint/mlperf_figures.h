// Checkpoint save and load throughput two ways, from the same per-checkpoint durations:
//  - DLIO's (argonne-lcf/dlio_benchmark utils/statscounter.py end_run; what mlpstorage publishes as
//    save_checkpoint_io_mean_GB_per_second): every checkpoint's own rate, size / d_i, then their mean;
//  - iofab's: the size over the mean duration.
// They part whenever the durations differ: one slow save lowers iofab's figure more than DLIO's
// (100 GiB in 10 s and in 40 s: DLIO 6.25 GiB/s, iofab 4.0). "GB" in DLIO's output is GiB.
#pragma once

#include <vector>

namespace iofab {

// The mean over checkpoints of bytes / seconds[i], in GiB/s. A duration <= 0 (nothing timed) is left
// out, where DLIO would divide by it; 0 when none is left.
double mean_of_rates_gib_per_s(double bytes, const std::vector<double>& seconds);

// bytes / the mean of seconds, in GiB/s; 0 when the mean is not positive.
double rate_of_mean_gib_per_s(double bytes, const std::vector<double>& seconds);

// The mean of seconds; 0 when empty.
double mean_seconds(const std::vector<double>& seconds);

}  // namespace iofab
