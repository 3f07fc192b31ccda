// Bandwidth time series: bytes completed per fixed interval (default 100 ms)
// since a common phase start, one per worker, merged by adding interval by
// interval (ranks share the start, taken right after a barrier).
//
// Thread-safety: none; each worker owns one.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace iofab {

class TimeSeries {
 public:
  // interval_ns 0 is taken as 1.
  explicit TimeSeries(uint64_t interval_ns = 100'000'000);

  // Adds bytes completed at t_ns (nanoseconds since the phase start), into
  // interval t_ns / interval_ns. Series are capped at 2^22 intervals (4.8
  // days at 100 ms): later times add to the last one, so a bogus time (an
  // end before its start, wrapped around) costs 32 MiB, not all memory.
  void add(uint64_t t_ns, uint64_t bytes);
  // Intervals should be equal; if not, other's intervals are re-binned by
  // their start times, which is approximate.
  void merge(const TimeSeries& other);

  uint64_t interval_ns() const { return interval_ns_; }
  const std::vector<uint64_t>& bytes() const { return bytes_; }
  // bytes per second for each interval; the last one may be only partly
  // inside the phase, which this cannot know, so it can read low.
  std::vector<double> rates() const;

  // {"interval_ns":..,"bytes":[...]}
  nlohmann::json to_json() const;
  // The same with "bytes" packed (packed_u64.h): what a rank sends rank 0.
  nlohmann::json to_wire() const;
  // false when j is not of either form (field missing, wrong type, negative,
  // interval 0, more intervals than the cap); *this is left unchanged then.
  bool from_json(const nlohmann::json& j);

 private:
  uint64_t interval_ns_;
  std::vector<uint64_t> bytes_;
};

}  // namespace iofab
