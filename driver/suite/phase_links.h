// Checks between phases of one suite, made when the suite is loaded: a
// mistake that can only show at run time (a restore of a checkpoint phase
// that runs later, a model_load whose weights_from names no earlier phase
// that wrote weights) would otherwise fail after earlier phases have written
// for minutes. `validate` and `run` both refuse such a suite, exit 2.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "driver/suite/suite.h"

namespace iofab {

// The longest phase name: the phase's folder in the run folder is named after it, and a file name holds at
// most NAME_MAX (255) bytes.
constexpr size_t kMaxPhaseNameBytes = 255;

// phases: the suite's valid phases in order; paths[i]: phases[i]'s JSON path ("phases[2]",
// "phases[1].concurrent[0]"), for messages. Appends one error per problem.
void check_phase_links(const std::vector<PhaseSpec>& phases, const std::vector<std::string>& paths,
                       std::vector<std::string>* errors);

}  // namespace iofab
