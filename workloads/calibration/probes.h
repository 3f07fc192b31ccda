// The probes `iofab calibrate` runs: each a Python script shipped inside the binary (embedded at build
// time from workloads/calibration/probes/*.py, cmake/EmbedProbes.cmake), which fills one section of the
// calibration file. A probe takes one argument, a JSON object of its inputs (the files calibrate made,
// batch sizes), and prints one JSON object of its measurements on its last line of stdout; the command
// fits the section from them (driver/cli/calibrate_command.cc). A new probe is a new script and a row
// here.
#pragma once

#include <span>
#include <string_view>

namespace iofab {

struct CalibrationProbe {
  std::string_view name;     // the probe's, also on the command line's output
  std::string_view script;   // its file name in workloads/calibration/probes/
  std::string_view section;  // the calibration file's section it fills
  std::string_view what;     // one line for the user
};

std::span<const CalibrationProbe> calibration_probes();

// The embedded text of probes/<file> ("" when there is none).
std::string_view embedded_probe_script(std::string_view file);

}  // namespace iofab
