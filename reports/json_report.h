// The canonical JSON form of a Report.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "harness/results/report.h"

namespace iofab {

nlohmann::json report_to_json(const Report& report);
// The report file's text, as `iofab run` writes it: the JSON indented by 2, except that an array
// holding no object (a series, a histogram's buckets) and a plain object inside an array (a per-rank
// row) are each one line, and a newline at the end.
std::string render_json_report(const Report& report);

}  // namespace iofab
