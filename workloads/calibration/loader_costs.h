// The calibration's "loader" section: what PyTorch's DataLoader costs in CPU beside its I/O, as
// `iofab calibrate` measured it (python), what the train_read profile's own syscalls and copies cost for
// the same work (native), and the difference the profile spends by spinning (spin = python - native, at
// least 0). Costs are CPU seconds.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "workloads/calibration/calibration.h"

namespace iofab {

inline constexpr std::string_view kLoaderSection = "loader";

struct LoaderCosts {
  double sample_s = 0;         // a worker's __getitem__ per sample (open, read, bytearray, frombuffer)
  double byte_s = 0;           // ... per byte of the sample
  double collate_batch_s = 0;  // a worker's default_collate into shared memory, per batch
  double collate_byte_s = 0;   // ... per byte of the batch
  double main_batch_s = 0;     // the main process per batch (index handout, receive, rebuild the tensor)
  double worker_start_s = 0;   // one worker's start, until it takes its first batch

  nlohmann::json to_json() const;
};

// One sample size's measurements, CPU seconds (calibrate measures three sizes).
struct LoaderPoint {
  double size = 0;          // sample bytes
  double batch_bytes = 0;   // size x batch
  double sample_s = 0;      // per sample (the Dataset's __getitem__, or the profile's read and copy)
  double collate_s = 0;     // per batch in a worker (collate into shared memory and the handoff)
  double main_batch_s = 0;  // per batch in the main loop
  nlohmann::json to_json() const;
};

// A cost as a function of bytes: straight lines between measured points, the end segments extended (never
// below 0). The per-byte cost is not one number: below glibc's mmap threshold (128 KiB) a buffer reuses
// the heap, above it every new buffer page-faults, so a line fitted through 16 KiB and 1 MiB misses 16 KiB
// by 2x; the measured points themselves do not.
struct SpinCurve {
  std::vector<double> x, y;
  double at(double v) const;
};

struct LoaderCalibration {
  LoaderCosts python;                      // the real DataLoader (the fitted lines, for people)
  LoaderCosts native;                      // the profile's own mechanics on the same files
  std::vector<LoaderPoint> python_points;  // what they were fitted from, size by size
  std::vector<LoaderPoint> native_points;
  LoaderCosts spin() const;
  // What the profile spins per sample (by its bytes) and per batch (by the batch's bytes): python - native
  // at each measured size when there are points for both, else from the fitted lines.
  SpinCurve sample_spin() const;
  SpinCurve collate_spin() const;
  nlohmann::json to_json() const;  // the section: python, native, spin (derived again on reading), points
};

// The built-in costs: measured with `iofab calibrate` on the project's 2-core VM (docs/calibration.md).
LoaderCalibration builtin_loader_calibration();

// The "loader" section of c, the built-in costs when it has none (*from_file says which); errors name the
// field: "calibration file F: sections.loader.python.byte_s: expected a number >= 0 (CPU seconds)".
Status loader_calibration(const Calibration& c, LoaderCalibration* out, bool* from_file);

}  // namespace iofab
