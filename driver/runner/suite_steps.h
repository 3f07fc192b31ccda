// A suite runs in steps: a phase alone, or a concurrent group's phases together (docs/phases/concurrent.md).
#pragma once

#include <cstddef>
#include <string>

#include "driver/suite/suite.h"

namespace iofab {

struct SuiteStep {
  size_t first = 0;   // its first phase in suite.phases
  size_t count = 1;   // how many phases it runs
  int group = -1;     // its concurrent group, -1 for a phase alone
  std::string label;  // the phase's name, or the group's label
};

inline SuiteStep suite_step_at(const Suite& suite, size_t first) {
  const int gi = suite.phases[first].group;
  if (gi < 0) return {.first = first, .count = 1, .group = -1, .label = suite.phases[first].name};
  const PhaseGroup& g = suite.groups[static_cast<size_t>(gi)];
  return {.first = first, .count = g.count, .group = gi, .label = g.label};
}

}  // namespace iofab
