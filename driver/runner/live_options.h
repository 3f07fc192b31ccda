// What the user asked of a run's live output (docs/live.md): plain progress lines in a log, a JSON stream,
// a node_exporter textfile. The CLI checks the values (exit 2 naming the flag); the runner reads them.
#pragma once

#include <string>

namespace iofab {

struct LiveOptions {
  double progress_every_s = 30;  // --progress-every: rank 0's plain line when stderr is no terminal; 0 off
  std::string live;              // --live FILE, "-" for stdout; empty: no stream
  double live_interval_s = 1;    // --live-interval
  std::string openmetrics;       // --live-openmetrics FILE; empty: none
};

// A rank lags when its share done is below the others' median share over this factor.
inline constexpr double kLagFactor = 2.0;

// Whether the ranks watch each phase (every rank must answer the same, so options alone decide).
inline bool live_watch_wanted(const LiveOptions& o, bool quiet) {
  return !o.live.empty() || !o.openmetrics.empty() || (!quiet && o.progress_every_s > 0);
}

}  // namespace iofab
