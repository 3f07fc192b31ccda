// A suite's "phases": each phase object (or concurrent group) read by its kind's row of the phase table,
// with the suite's defaults that its kind knows; then the links between phases and the defaults no phase
// took. Every error names its JSON path.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "driver/suite/suite.h"

namespace iofab {

// The suite's "defaults": which apply to a phase (those its kind knows), and which none took.
class SuiteDefaults {
 public:
  // doc's "defaults", when it is an object; an error when it is something else.
  SuiteDefaults(const nlohmann::json& doc, std::vector<std::string>* errors);

  // The defaults kind knows, marked as taken.
  nlohmann::json applicable(const PhaseKind& kind, const std::string& path);
  // A default no phase took: known to some kind not in this suite is fine; known to none is a typo.
  void check_unused(std::vector<std::string>* errors) const;

 private:
  const nlohmann::json* defaults_ = nullptr;
  std::set<std::string, std::less<>> used_;
};

// phases: the suite's non-empty "phases" array, into out->phases and out->groups.
void parse_phase_list(const nlohmann::json& phases, SuiteDefaults& defaults, Suite* out,
                      std::vector<std::string>* errors);

}  // namespace iofab
