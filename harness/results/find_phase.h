// A report's phase by name: what compare, the side-by-side pages and the repeats' means each look up.
#pragma once

#include <string_view>

#include "harness/results/report.h"

namespace iofab {

// nullptr when the report has no phase named name.
inline const PhaseReport* find_phase(const Report& report, std::string_view name) {
  for (const auto& p : report.phases) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

}  // namespace iofab
