// The canonical JSON form of a Report.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/results/report.h"

namespace iofab {

nlohmann::json report_to_json(const Report& report);

}  // namespace iofab
