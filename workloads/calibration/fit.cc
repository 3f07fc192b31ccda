#include "workloads/calibration/fit.h"

#include <cstddef>

namespace iofab {

LineFit fit_line(std::span<const double> xs, std::span<const double> ys) {
  LineFit f;
  const size_t n = xs.size() < ys.size() ? xs.size() : ys.size();
  if (n == 0) return f;
  double mx = 0;
  double my = 0;
  for (size_t i = 0; i < n; ++i) {
    mx += xs[i];
    my += ys[i];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxx = 0;
  double sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxx += (xs[i] - mx) * (xs[i] - mx);
    sxy += (xs[i] - mx) * (ys[i] - my);
  }
  if (sxx <= 0) {
    f.intercept = my;  // one size only: all of it is the fixed cost
    return f;
  }
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  f.ok = true;
  return f;
}

}  // namespace iofab
