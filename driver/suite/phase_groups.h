// Concurrent groups in a suite: the entry {"concurrent": [phase, ...],
// "clock": NAME, "solo": bool} (docs/phases/concurrent.md). Its phases are
// parsed as any phase is, then marked with the group; the group's own keys
// are checked here.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/suite/suite.h"

namespace iofab {

// A member's solo run (its phase alone, first) works in the folder "<name>.solo" ('.' is never in a phase's
// name): a member's name leaves room for it.
inline constexpr std::string_view kSoloSuffix = ".solo";

// Parses one phase object at path into out->phases; true when it was valid.
using ParsePhaseFn = std::function<bool(const nlohmann::json& phase, const std::string& path)>;

// entry: a "phases" element that holds "concurrent"; path: its JSON path. Appends the valid members to
// out->phases, the group to out->groups, and one error per problem.
void parse_group(const nlohmann::json& entry, const std::string& path, const ParsePhaseFn& parse_phase, Suite* out,
                 std::vector<std::string>* errors);

}  // namespace iofab
