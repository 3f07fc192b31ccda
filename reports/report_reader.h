// Reading a JSON report back (for compare and report), validated: reports
// come from other machines and other versions, so every problem is an
// Invalid status naming the file, the JSON path and the expected form
// ("a.json: phases[2].checks[0].passed: expected true or false, got 1"),
// never a crash or an exception. Details a writer may plot (histograms,
// series) are checked where they are used, so a malformed one costs only
// its plot.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "harness/results/report.h"

namespace iofab {

struct LoadedReport {
  std::string source;  // the path it was read from, for messages
  int schema_version = 0;
  Report report;
};

// Reads and validates path.
Status read_report_file(const std::string& path, LoadedReport* out);
// Validates an already parsed document; source names it in messages.
Status read_report_json(const nlohmann::json& doc, const std::string& source, LoadedReport* out);

// Helpers over a phase read back (or built by the runner).

// The metric's unit as the report states it in details.units ("bytes",
// "bytes/s", "s", "fraction", "count", "ratio"), matching families such as
// "busbw.*"; when the report does not say, its kind's metric row (the Unit table's text), and a guess
// from the name for a kind or metric this build does not know.
std::string metric_unit(const PhaseReport& phase, const std::string& metric);
// "higher", "lower" or "neither": details.better when present (families
// matched), else a rule on the name (direction_from_name).
std::string metric_better(const PhaseReport& phase, const std::string& metric);
// The name-based rule for reports without details.better: *_bytes_per_s,
// busbw.*, algbw.*, *_per_s (samples_per_s), au, *margin higher; *_seconds, *_s,
// latency*, stall*, wrong_elements, corrupt_*, exposed_comm_fraction.* lower.
std::string direction_from_name(const std::string& metric);
// The numeric value of a metric, or nullopt when absent or null.
std::optional<double> metric_value(const PhaseReport& phase, const std::string& metric);
// The metric names of the given phases (nullptr entries skipped), each once:
// the headline metrics first (the figures a person looks for), then the rest
// in natural order ("busbw.all_reduce.65536" before "busbw.all_reduce.1048576").
std::vector<std::string> ordered_metric_names(const std::vector<const PhaseReport*>& phases);
// Natural order: digit runs compare as numbers.
bool natural_less(const std::string& a, const std::string& b);
// A value in a map keyed by metric name or family ("busbw.*"); nullptr if none.
const nlohmann::json* find_by_metric(const nlohmann::json& map, const std::string& metric);

}  // namespace iofab
