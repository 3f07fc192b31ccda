// A phase's `checks` and `headline` in a suite: each check's metric known to the phase's kind, its op, its
// threshold in the metric's unit (the Unit table, harness/phase/unit.h); every error names its JSON path.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "driver/suite/suite.h"

namespace iofab {

// arr at path ("phases[0].checks") into out; params: the phase's resolved params (its engine).
void parse_checks(const nlohmann::json& arr, const std::string& path, const PhaseKind& kind,
                  const nlohmann::json& params, std::vector<CheckSpec>* out,
                  std::vector<std::string>* errors);

// `headline`: the metrics the console shows for the phase, instead of the first ones of its table.
void parse_headline(const nlohmann::json& arr, const std::string& path, const PhaseKind& kind,
                    std::vector<std::string>* out, std::vector<std::string>* errors);

}  // namespace iofab
