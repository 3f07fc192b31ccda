#include "driver/cli/live_flags.h"

#include <CLI/CLI.hpp>

#include "harness/core/units.h"

namespace iofab {
namespace {

// Below 10 ms a watcher would cost more than it shows; above a day it never speaks in a run.
constexpr double kMinInterval = 0.01;
constexpr double kMaxInterval = 24 * 3600;

Status read_duration(const char* flag, const std::string& text, bool zero_ok, double* out) {
  const auto t = units::parse_duration(text);
  if (t && zero_ok && *t == 0) {
    *out = 0;
    return Status::Ok();
  }
  if (!t || *t < kMinInterval || *t > kMaxInterval) {
    return Status::Invalid(std::string(flag) +
                           ": expected a duration from 10ms to 24h like \"30s\" or \"2min\"" +
                           (zero_ok ? ", or 0 for none" : "") + ", got \"" + text + "\"");
  }
  *out = *t;
  return Status::Ok();
}

}  // namespace

void add_live_flags(CLI::App* run, LiveFlags* typed, LiveOptions* opts) {
  run->add_option(
      "--progress-every", typed->progress_every,
      "When stderr is no terminal (a batch job's log): a plain progress line this often, from rank "
      "0 with every rank's figures; 0: none (default 30s)");
  run->add_option("--live", opts->live,
                  "Stream one JSON line per interval of each running phase to FILE, or - for stdout "
                  "(docs/live.md)");
  run->add_option("--live-interval", typed->live_interval,
                  "The --live and --live-openmetrics interval (default 1s)");
  run->add_option("--live-openmetrics", opts->openmetrics,
                  "Rewrite FILE every interval (atomically) with the running phase's figures, for "
                  "node_exporter's textfile collector: name it *.prom in its folder");
}

Status read_live_flags(const LiveFlags& typed, LiveOptions* opts) {
  if (Status s = read_duration("--progress-every", typed.progress_every, true, &opts->progress_every_s);
      !s.ok()) {
    return s;
  }
  if (Status s = read_duration("--live-interval", typed.live_interval, false, &opts->live_interval_s);
      !s.ok()) {
    return s;
  }
  if (opts->openmetrics == "-") {
    return Status::Invalid("--live-openmetrics: expected a FILE that is rewritten in place, not \"-\"");
  }
  return Status::Ok();
}

std::vector<NamedPath> live_output_paths(const LiveOptions& opts) {
  std::vector<NamedPath> out;
  if (!opts.live.empty() && opts.live != "-") out.push_back({"--live", opts.live});
  if (!opts.openmetrics.empty()) out.push_back({"--live-openmetrics", opts.openmetrics});
  return out;
}

}  // namespace iofab
