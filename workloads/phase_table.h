// The phase table: the one place that lists phases. Adding a phase is one
// file in workloads/ and one row here (see docs/architecture.md).
#pragma once

#include <string_view>
#include <vector>

#include "harness/phase/phase.h"

namespace iofab {

const std::vector<PhaseKind>& phase_table();
const PhaseKind* find_phase_kind(std::string_view name);

}  // namespace iofab
