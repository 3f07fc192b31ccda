// A phase's bottleneck, where its telemetry (details.telemetry) makes it plain, with the evidence;
// silent where no rule fires, rather than a guess. Rules, over the phase's full intervals (the
// shorter last one left out), on any host, at least 3 of them:
//   device: a disk behind the target had I/O in flight >= 90% of the time;
//   cpu:    the busiest core was >= 90% busy and iofab itself used >= 0.9 of a core, while every
//           disk behind the target was < 60% busy;
//   other_load: the busiest core was >= 90% busy while iofab used < 0.5 of a core: something else
//           on the host competed with the run (the figures may be the neighbour's as much as the
//           storage's).
// The hint is codes and numbers (details.bottleneck); hint_text words it for the console.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace iofab {

// From a phase's details.telemetry: {"kind", "host", "samples", and the kind's evidence}, or nullopt.
std::optional<nlohmann::json> bottleneck_hint(const nlohmann::json& telemetry);
// "device-bound: vda busy 99% of the time, 31 I/Os in flight on average (host vm, 12 samples)".
std::string hint_text(const nlohmann::json& hint);

}  // namespace iofab
