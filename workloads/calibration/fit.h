// Ordinary least squares of y = intercept + slope * x, how calibrate turns its timings at several sizes
// into a fixed cost and a cost per byte.
#pragma once

#include <span>

namespace iofab {

struct LineFit {
  double intercept = 0;
  double slope = 0;
  bool ok = false;  // at least two distinct x values
};

LineFit fit_line(std::span<const double> xs, std::span<const double> ys);

}  // namespace iofab
