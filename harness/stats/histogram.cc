#include "harness/stats/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>

#include <nlohmann/json.hpp>

#include "harness/core/json_input.h"
#include "harness/core/packed_u64.h"

namespace iofab {
namespace {

// 128 linear sub-buckets per power of two: a bucket [lower, lower + w) has lower >= 128 w, so its midpoint
// is within w / 2 / (128 w) = 0.39% of any value in it, inside the promised 1%.
constexpr int kSubBits = 7;

// Values below 256 get a bucket each; above, the power of two [2^m, 2^(m+1)) is split into 128 buckets of
// width 2^(m-7). The index is continuous: the top of one power of two is followed by the next one's first.
constexpr size_t bucket_index(uint64_t v) {
  const int msb = 63 - std::countl_zero(v | 1);
  const int shift = std::max(msb - kSubBits, 0);
  return (static_cast<size_t>(shift) << kSubBits) + static_cast<size_t>(v >> shift);
}

constexpr size_t kBuckets = bucket_index(Histogram::kMaxValue) + 1;

constexpr uint64_t bucket_midpoint(size_t index) {
  const int shift = index < (size_t{2} << kSubBits) ? 0 : static_cast<int>(index >> kSubBits) - 1;
  const uint64_t lower = static_cast<uint64_t>(index - (static_cast<size_t>(shift) << kSubBits)) << shift;
  return lower + ((uint64_t{1} << shift) >> 1);
}

static_assert(bucket_index(255) == 255 && bucket_index(256) == 256 && bucket_index(257) == 256);
static_assert(bucket_midpoint(bucket_index(1000)) == 1002 && bucket_midpoint(7) == 7);

// Adds a 128-bit (hi:lo) amount to a 128-bit (hi:lo) sum; wraps past 2^128, which is 10^22 hours.
void add128(uint64_t* sum_hi, uint64_t* sum_lo, uint64_t hi, uint64_t lo) {
  *sum_hi += hi + __builtin_add_overflow(*sum_lo, lo, sum_lo);
}

long double to_long_double(uint64_t hi, uint64_t lo) {
  return std::ldexp(static_cast<long double>(hi), 64) + static_cast<long double>(lo);
}


bool get_field(const nlohmann::json& j, const char* key, uint64_t* out) {
  auto it = j.find(key);
  return it != j.end() && json_u64(*it, out);
}

// "sum" as written by to_json: an integer, or a float once the sum passed 2^64.
bool get_sum(const nlohmann::json& j, uint64_t* hi, uint64_t* lo) {
  auto it = j.find("sum");
  if (it == j.end()) return false;
  *hi = 0;
  if (json_u64(*it, lo)) return true;
  if (!it->is_number_float()) return false;
  const long double s = it->get<double>();
  if (!(s >= 0) || s >= std::ldexp(1.0L, 128)) return false;
  const long double high = std::floor(std::ldexp(s, -64));
  *hi = static_cast<uint64_t>(high);
  *lo = static_cast<uint64_t>(s - std::ldexp(high, 64));
  return true;
}

}  // namespace

Histogram::Histogram() : counts_(kBuckets, 0) {}

void Histogram::record(uint64_t value_ns) {
  // Runs once per I/O: no allocation, and no branch beyond what min/max compile to (cmov).
  overflow_ += value_ns > kMaxValue;
  ++counts_[bucket_index(std::min(value_ns, kMaxValue))];
  ++count_;
  min_ = std::min(min_, value_ns);
  max_ = std::max(max_, value_ns);
  add128(&sum_hi_, &sum_lo_, 0, value_ns);
}

void Histogram::record_n(uint64_t value_ns, uint64_t count) {
  if (count == 0) return;  // would otherwise move min and max without a sample
  if (value_ns > kMaxValue) overflow_ += count;
  counts_[bucket_index(std::min(value_ns, kMaxValue))] += count;
  count_ += count;
  min_ = std::min(min_, value_ns);
  max_ = std::max(max_, value_ns);
  __extension__ using Uint128 = unsigned __int128;
  const Uint128 product = static_cast<Uint128>(value_ns) * count;
  add128(&sum_hi_, &sum_lo_, static_cast<uint64_t>(product >> 64), static_cast<uint64_t>(product));
}

void Histogram::merge(const Histogram& other) {
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  add128(&sum_hi_, &sum_lo_, other.sum_hi_, other.sum_lo_);
  overflow_ += other.overflow_;
}

void Histogram::clear() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = 0;
  min_ = UINT64_MAX;
  max_ = 0;
  sum_lo_ = 0;
  sum_hi_ = 0;
  overflow_ = 0;
}

uint64_t Histogram::min() const { return count_ == 0 ? 0 : min_; }

uint64_t Histogram::max() const { return count_ == 0 ? 0 : max_; }

double Histogram::mean() const {
  if (count_ == 0) return 0;
  return static_cast<double>(to_long_double(sum_hi_, sum_lo_) / static_cast<long double>(count_));
}

uint64_t Histogram::percentile(double q) const {
  if (count_ == 0) return 0;
  if (!(q > 0)) return min_;  // also NaN
  if (q >= 1) return max_;
  const double rank_d = std::ceil(q * static_cast<double>(count_));
  const uint64_t rank = std::clamp<uint64_t>(static_cast<uint64_t>(rank_d), 1, count_);
  uint64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::clamp(bucket_midpoint(i), min_, max_);
  }
  return max_;  // unreachable while the counts add up to count_, which from_json checks
}

nlohmann::json Histogram::to_json() const {
  nlohmann::json buckets = nlohmann::json::array();
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] != 0) buckets.push_back(nlohmann::json::array({i, counts_[i]}));
  }
  nlohmann::json j = fields_json();
  j["buckets"] = std::move(buckets);
  return j;
}

nlohmann::json Histogram::to_wire() const {
  // (gap, count) pairs, the gap from the last non-empty bucket: one byte each as varints.
  std::vector<uint64_t> pairs;
  size_t last = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] != 0) {
      pairs.push_back(i - last);
      pairs.push_back(counts_[i]);
      last = i;
    }
  }
  nlohmann::json j = fields_json();
  j["buckets"] = pack_u64(pairs);
  return j;
}

nlohmann::json Histogram::fields_json() const {
  nlohmann::json j = {{"count", count_}, {"min", min()}, {"max", max()}, {"overflow", overflow_}};
  // JSON carries raw integers; only a sum past 2^64 (a merge of ~5,000 worker-hours of latency per rank
  // over thousands of ranks) falls back to a float.
  if (sum_hi_ == 0) {
    j["sum"] = sum_lo_;
  } else {
    j["sum"] = static_cast<double>(to_long_double(sum_hi_, sum_lo_));
  }
  return j;
}

bool Histogram::from_json(const nlohmann::json& j) {
  if (!j.is_object()) return false;
  Histogram h;
  uint64_t min = 0;
  uint64_t max = 0;
  if (!get_field(j, "count", &h.count_) || !get_field(j, "min", &min) || !get_field(j, "max", &max) ||
      !get_field(j, "overflow", &h.overflow_) || !get_sum(j, &h.sum_hi_, &h.sum_lo_)) {
    return false;
  }
  auto buckets = j.find("buckets");
  if (buckets == j.end()) return false;
  uint64_t total = 0;
  auto add = [&](uint64_t index, uint64_t n) {
    if (index >= h.counts_.size() || __builtin_add_overflow(total, n, &total)) return false;
    h.counts_[index] += n;  // cannot wrap: bounded by total
    return true;
  };
  if (buckets->is_binary()) {
    std::vector<uint64_t> pairs;
    if (!unpack_u64(*buckets, &pairs, 2 * kBuckets) || pairs.size() % 2 != 0) return false;
    uint64_t index = 0;
    for (size_t i = 0; i < pairs.size(); i += 2) {
      if (__builtin_add_overflow(index, pairs[i], &index) || !add(index, pairs[i + 1])) return false;
    }
  } else {
    if (!buckets->is_array()) return false;
    for (const nlohmann::json& b : *buckets) {
      uint64_t index = 0;
      uint64_t n = 0;
      if (!b.is_array() || b.size() != 2 || !json_u64(b[0], &index) || !json_u64(b[1], &n)) return false;
      if (!add(index, n)) return false;
    }
  }
  // Percentile walks trust these; a histogram that does not add up is corrupt, not approximately right.
  if (total != h.count_ || h.overflow_ > h.count_) return false;
  if (h.count_ > 0) {
    if (min > max) return false;
    h.min_ = min;
    h.max_ = max;
  }
  *this = std::move(h);
  return true;
}

}  // namespace iofab
