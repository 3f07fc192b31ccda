// The run's live-output flags (docs/live.md): --progress-every, --live, --live-interval,
// --live-openmetrics. Added to `iofab run`, read into RunOptions::live, checked before anything runs.
#pragma once

#include <string>
#include <vector>

#include "driver/cli/output_paths.h"
#include "driver/runner/live_options.h"
#include "harness/core/status.h"

namespace CLI {
class App;
}  // namespace CLI

namespace iofab {

// As typed: durations are parsed by read_live_flags, so a bad one names its flag and the form.
struct LiveFlags {
  std::string progress_every = "30s";
  std::string live_interval = "1s";
};

void add_live_flags(CLI::App* run, LiveFlags* typed, LiveOptions* opts);
// Invalid naming the flag and the expected form; opts' durations set otherwise.
Status read_live_flags(const LiveFlags& typed, LiveOptions* opts);
// The live files as outputs, for the checks every output gets before the run ("-" is stdout: none).
std::vector<NamedPath> live_output_paths(const LiveOptions& opts);

}  // namespace iofab
