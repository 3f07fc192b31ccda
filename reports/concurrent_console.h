// The console's lines for a phase that ran in a concurrent group
// (docs/phases/concurrent.md): whom it ran beside, its figures inside the
// other phases' windows against outside them, and against the same phase
// run alone.
#pragma once

#include <ostream>

#include "harness/results/report.h"

namespace iofab {

// Writes nothing for a phase that ran alone.
void write_concurrent_lines(const PhaseReport& p, std::ostream& out);

}  // namespace iofab
