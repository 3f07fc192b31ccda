// A suite's own keys above its phases: name, description, target, target_scope, each kind of target's
// section, telemetry_interval; and that no other top key is there. Every error names its JSON path.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "driver/suite/suite.h"

namespace iofab {

// The header of doc into out; one error per problem appended to errors.
void parse_suite_header(const nlohmann::json& doc, Suite* out, std::vector<std::string>* errors);

}  // namespace iofab
