// A loader's figures split by a concurrent group's windows
// (docs/phases/concurrent.md): AU and sample latency inside another phase's
// bursts and drains, against outside every window. Each rank splits its own
// timeline by its own process's windows (one monotonic clock); rank 0 adds
// the ranks' splits.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/phase/group_windows.h"
#include "harness/phase/phase.h"
#include "harness/stats/histogram.h"
#include "harness/stats/time_spans.h"

namespace iofab {

// What a loader did, in time, during a phase that runs in a group.
struct LoaderMarks {
  // At 16 bytes a mark, 64 MiB a rank at most; later samples count in dropped_samples.
  static constexpr size_t kMaxSamples = 4'000'000;

  std::vector<TimeSpan> active;  // each epoch: its first batch taken to its last compute's end
  std::vector<TimeSpan> busy;    // each batch's emulated compute
  struct Sample {
    uint64_t end_ns;
    uint64_t latency_ns;
  };
  std::vector<Sample> samples;
  uint64_t dropped_samples = 0;

  void add_sample(uint64_t end_ns, uint64_t latency_ns) {
    if (samples.size() < kMaxSamples) {
      samples.push_back({end_ns, latency_ns});
    } else {
      ++dropped_samples;
    }
  }
};

// One class of time: inside the windows of one kind, or outside every window.
struct WindowClass {
  uint64_t active_ns = 0;  // the loader's active time inside it
  uint64_t busy_ns = 0;    // its compute time inside it
  Histogram latency;       // samples that ended inside it
};

struct WindowSplit {
  bool present = false;    // the phase ran in a group that has windows
  bool complete = true;    // every publisher had ended when the split was made
  std::map<std::string, uint64_t> windows;     // how many windows of each kind
  std::map<std::string, WindowClass> classes;  // by window kind, and "outside"
  uint64_t unclassified_samples = 0;           // past LoaderMarks::kMaxSamples

  void merge(const WindowSplit& other);
  nlohmann::json to_json() const;
  bool from_json(const nlohmann::json& j);
};

nlohmann::json to_wire(const WindowSplit& s);
Status from_wire(const nlohmann::json& j, WindowSplit* out);

WindowSplit split_by_windows(const LoaderMarks& marks, const std::vector<TimeWindow>& windows, bool complete);

// Rank 0, the ranks' splits merged: au_during_<kind>, au_outside, sample_latency_p99_during_<kind>_s,
// sample_latency_p99_outside_s, and details.windows.
void report_window_split(const WindowSplit& merged, PhaseResult* result);

// The metrics report_window_split sets, for the phase's table.
const std::vector<MetricInfo>& window_metric_infos();

}  // namespace iofab
