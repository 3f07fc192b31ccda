// --set PATH=VALUE on a suite document before it is read: target, name, description, telemetry_interval,
// target_scope, a target section's key (s3.endpoint), defaults.KEY, phases.NAME.KEY or phases[I].KEY, and
// checkpoint_scale (`run --scale N`: every phase whose kind's row scales).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "harness/core/status.h"

namespace iofab {

// Sets one PATH=VALUE in doc; a clear error naming --set and the path otherwise.
Status apply_set(nlohmann::json* doc, const std::string& set);

}  // namespace iofab
