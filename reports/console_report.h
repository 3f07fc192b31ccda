// The summary a person reads at the end of a run: one block per phase with
// its headline figures in labelled units, every check, and the verdict.
#pragma once

#include <ostream>

#include "harness/results/report.h"

namespace iofab {

// Formats value for a unit name as stored in a report ("bytes", "bytes/s", "s", ...).
std::string format_metric_value(double value, const std::string& unit);
void write_console_summary(const Report& report, std::ostream& out);

}  // namespace iofab
