// JUnit XML, the format Jenkins, GitLab and GitHub (via test-report actions)
// show: <testsuites> > <testsuite name tests failures errors skipped time
// timestamp hostname> > <testcase name classname time> with <failure
// message type>, <error> or <skipped>. A failure's message carries the
// measured value and the threshold, in people's units and raw.
//  - run:     one testsuite per phase; a testcase for the phase itself (error
//             or skipped when it did not run) and one per check;
//  - compare: one testsuite per phase; one testcase per compared metric,
//             failing when it regressed or went missing.
#pragma once

#include <string>

#include "harness/results/report.h"
#include "reports/compare.h"

namespace iofab {

std::string junit_for_run(const Report& report);
std::string junit_for_compare(const Comparison& cmp, const Report& current);
// The same, its time and host from the comparison (Comparison::current_start_time, current_hostname): the
// reporter table's row for `compare --junit`.
std::string junit_for_comparison(const Comparison& cmp);

}  // namespace iofab
