// The canonical JSON form of a Report, and writing it atomically.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "harness/core/status.h"
#include "reports/report.h"

namespace iofab {

nlohmann::json report_to_json(const Report& report);
// Writes text to path via a temp file in the same folder, fsync and rename,
// so a reader sees the old file or the whole new one, never half.
Status write_file_atomic(const std::string& path, const std::string& text);

}  // namespace iofab
