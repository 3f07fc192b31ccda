// A calibration file: what `iofab calibrate` measured of the real software (PyTorch's DataLoader today;
// torch.save and safetensors later), which the framework profiles read so that they spend the real
// software's CPU costs. It is JSON with named sections, one per probe, so a new probe adds a section
// without touching the others:
//   {"format": "iofab-calibration", "version": 1, "created": RFC 3339, "host": ..., "python": ...,
//    "torch": "1.13.1", "sections": {"loader": {...}, ...}}
// A phase finds its calibration by find_calibration (its `calibration` param, $IOFAB_CALIBRATION, the
// default path `iofab calibrate` writes, else the built-in defaults measured on the project's machine).
// See docs/calibration.md.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "harness/core/status.h"

namespace iofab {

inline constexpr std::string_view kCalibrationFormat = "iofab-calibration";
inline constexpr int kCalibrationVersion = 1;
inline constexpr std::string_view kBuiltInCalibration = "built-in";

struct Calibration {
  std::string source = std::string(kBuiltInCalibration);  // the file it was read from, or "built-in"
  std::string created;                                    // RFC 3339, when calibrate wrote it
  std::string host;
  std::string python;  // the interpreter's path and version
  std::string torch;   // torch's version; "" when torch was not there
  nlohmann::json sections = nlohmann::json::object();

  bool built_in() const { return source == kBuiltInCalibration; }
  // A section by name (a probe's), null when the file has none: the profile then uses its defaults.
  const nlohmann::json* section(std::string_view name) const;
  // The whole file as calibrate writes it.
  nlohmann::json to_json() const;
  // What a report says of it (details.calibration): source, torch, created, host, python.
  nlohmann::json provenance() const;
};

// The calibration in text (a file's contents); source names it in errors, which name the field and the
// form expected: "calibration file F: version: expected 1, got 2".
Status parse_calibration(std::string_view text, const std::string& source, Calibration* out);
Status load_calibration_file(const std::string& path, Calibration* out);

// $XDG_CONFIG_HOME/iofab/calibration.json, else $HOME/.config/iofab/calibration.json; "" without either.
std::string default_calibration_path();

// The calibration a phase uses: `param` (a path; empty: none given), else $IOFAB_CALIBRATION, else the
// default path when a file is there, else the built-in one (*out as default-constructed, source
// "built-in"). A path given (param or environment) that cannot be read or parsed is an error naming it.
Status find_calibration(const std::string& param, Calibration* out);

}  // namespace iofab
