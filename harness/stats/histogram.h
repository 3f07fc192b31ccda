// Latency histogram, log-linear in HDR style: values in nanoseconds from 1 ns
// to 1 hour, relative error <= 1% (128 linear sub-buckets per power of two;
// a bucket reports its midpoint). Values above the range are clamped into the
// top bucket and counted in overflow(); the exact max is kept separately.
// Histograms of different workers and ranks merge by adding counts, and
// serialise to a compact JSON form so rank 0 can merge them after a gather.
//
// Thread-safety: none; each worker owns one and they are merged after.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace iofab {

class Histogram {
 public:
  static constexpr uint64_t kMaxValue = 3'600'000'000'000ULL;  // 1 h in ns

  Histogram();

  void record(uint64_t value_ns);
  void record_n(uint64_t value_ns, uint64_t count);
  void merge(const Histogram& other);
  void clear();

  uint64_t count() const { return count_; }
  uint64_t min() const;          // exact; 0 when empty
  uint64_t max() const;          // exact; 0 when empty
  double mean() const;           // exact (sum kept); 0 when empty
  uint64_t overflow() const { return overflow_; }
  // q in [0, 1]; the value at or below which a fraction q of samples lie,
  // within 1% relative error; q == 1 gives max(). 0 when empty.
  // Nearest rank: the sample of 1-based rank ceil(q * count()) (computed in
  // double), reported as its bucket's midpoint clamped to [min(), max()];
  // q <= 0 gives min(). Samples above kMaxValue read as about kMaxValue.
  uint64_t percentile(double q) const;

  // {"count":..,"min":..,"max":..,"sum":..,"overflow":..,"buckets":[[index,count],...]}
  // with only the non-empty buckets listed. "sum" is an integer, or a
  // (rounded) float past 2^64; "min" and "max" are 0 when empty.
  nlohmann::json to_json() const;
  // The same with "buckets" packed (packed_u64.h) as gap, count, gap, count..., each gap the
  // index's distance from the previous non-empty bucket (the first's from 0): what a rank sends
  // rank 0.
  nlohmann::json to_wire() const;
  // false when j is not of either form (any field missing, wrong type, a
  // negative number, bucket index out of range, bucket counts not adding up
  // to count, overflow > count, min > max); *this is left unchanged then.
  bool from_json(const nlohmann::json& j);

 private:
  nlohmann::json fields_json() const;  // every field but the buckets

  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  // The exact sum as 128 bits (hi:lo): a merge over many ranks can pass 2^64 ns, and two integer adds keep
  // record() cheaper than a long double would.
  uint64_t sum_lo_ = 0;
  uint64_t sum_hi_ = 0;
  uint64_t overflow_ = 0;
};

}  // namespace iofab
