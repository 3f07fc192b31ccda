// The phase table: the one place that lists phases. Adding a phase is one
// file in workloads/ and one row here (see docs/architecture.md).
#pragma once

#include <string_view>
#include <vector>

#include "harness/phase/phase.h"

namespace iofab {

const std::vector<PhaseKind>& phase_table();
const PhaseKind* find_phase_kind(std::string_view name);

// The link by which a phase of kind `name` reads back what an earlier phase wrote (PhaseLink::read_back:
// a restore's checkpoint), for MLPerf's write-to-read gap; nullptr for a kind that reads nothing back.
const PhaseLink* read_back_link(std::string_view name);

}  // namespace iofab
