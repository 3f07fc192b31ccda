// What a phase's figures mean, in words, from the codes and counts its
// details carry: a phase writes figures ("stall_includes": ["write", "fsync",
// "commit"], "projection_writers": 8), and the reporters say what they mean.
// Old reports that carry none of these codes get no definition.
#pragma once

#include <string>

#include "harness/results/report.h"

namespace iofab {

// One sentence or a few, "" when the phase's details say nothing to define.
std::string phase_definitions(const PhaseReport& phase);

}  // namespace iofab
