// The console lines `iofab run --repeat` adds after the summary: how many
// runs, and the spread (stdev, coefficient of variation) of each phase's
// headline figures, so a person sees at once how noisy the machine is.
#pragma once

#include <ostream>

#include "harness/results/report.h"

namespace iofab {

void write_repeat_summary(const Report& report, std::ostream& out);

}  // namespace iofab
