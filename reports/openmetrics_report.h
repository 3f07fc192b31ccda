// OpenMetrics text (https://openmetrics.io), the exposition format that
// node_exporter's textfile collector and the Pushgateway take, so a cluster's
// Grafana shows acceptance runs beside its other metrics:
//
//   iofab_phase_metric{suite,target_fs,hosts,phase,metric,unit}  each phase's headline figures, base units
//   iofab_check_passed{suite,target_fs,hosts,phase,check,metric} 1 passed, 0 failed
//   iofab_check_value{...same...}                                the measured value (absent: none)
//   iofab_check_threshold{...same...}                            the check's threshold
//   iofab_run_passed{suite,target_fs,hosts}                      1 when the verdict is "passed"
//   iofab_run_start_time_seconds, iofab_run_duration_seconds     when, and how long
//
// With several reports (`iofab report --format openmetrics a.json b.json`) every
// sample also carries system="<label>". Label values are escaped (\\, \", \n),
// each family's samples follow its # TYPE and # HELP, and the text ends "# EOF".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/results/report.h"
#include "reports/side_by_side.h"

namespace iofab {

std::string openmetrics_for_run(const Report& report);
std::string openmetrics_for_systems(const std::vector<SystemReport>& systems);
// A label value as the exposition format quotes it: backslash, double quote and newline escaped,
// bytes that are not UTF-8 replaced.
std::string openmetrics_label_escape(std::string_view value);

}  // namespace iofab
