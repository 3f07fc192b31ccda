// IoTally: what a set of workers moved in one phase: bytes, I/O count, the
// span from first start to last end, latencies and a bandwidth series. One
// per worker, merged per rank, sent to rank 0 as JSON and merged again, so
// aggregate bandwidth is total bytes / (last end - first start) over all
// ranks, as DESIGN.md defines it. Times are ns since the phase start, which
// every rank takes right after the same barrier.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "harness/stats/histogram.h"
#include "harness/stats/time_series.h"

namespace iofab {

struct IoTally {
  explicit IoTally(uint64_t series_interval_ns = 100'000'000) : series(series_interval_ns) {}

  uint64_t bytes = 0;
  uint64_t ios = 0;
  uint64_t start_ns = UINT64_MAX;  // earliest start; UINT64_MAX when nothing ran
  uint64_t end_ns = 0;             // latest end
  Histogram latency;
  TimeSeries series;

  void span(uint64_t start, uint64_t end) {
    if (start < start_ns) start_ns = start;
    if (end > end_ns) end_ns = end;
  }
  void merge(const IoTally& other);
  double seconds() const { return end_ns > start_ns && start_ns != UINT64_MAX ? (end_ns - start_ns) * 1e-9 : 0.0; }
  double bytes_per_s() const { return seconds() > 0 ? static_cast<double>(bytes) / seconds() : 0.0; }

  nlohmann::json to_json() const;
  // The same with the histogram's buckets and the series packed: what a rank sends rank 0.
  nlohmann::json to_wire() const;
  // Reads either form.
  bool from_json(const nlohmann::json& j);
};

// Percentile summary in seconds for reports: {p50, p90, p99, p999, max, mean, count}.
nlohmann::json latency_summary_json(const Histogram& h);

}  // namespace iofab
