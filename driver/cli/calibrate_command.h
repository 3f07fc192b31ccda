// `iofab calibrate`: runs the real software's probes (workloads/calibration/probes.h) with a python3
// that has torch, on small files made in a scratch folder (removed afterwards), warm in the page cache,
// fits the costs and writes the calibration file the framework profiles read (docs/calibration.md).
#pragma once

#include <ostream>
#include <string>

namespace iofab {

struct CalibrateArgs {
  std::string out;     // empty: default_calibration_path()
  std::string dir;     // the scratch folder's parent; empty: $TMPDIR, else /tmp
  std::string python;  // empty: /usr/bin/python3, else python3 on PATH
  int files = 256;     // files per sample size (the 1 MiB set: a quarter of them)
  int rounds = 3;      // the probe's repetitions (medians)
};

// Exit 0 written; 2 bad input or no python3 with torch (nothing written, nothing left behind); 3 a
// probe failed.
int cmd_calibrate(const CalibrateArgs& args, std::ostream& out, std::ostream& err);

}  // namespace iofab
