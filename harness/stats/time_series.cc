#include "harness/stats/time_series.h"

#include <algorithm>
#include <cstddef>

#include <nlohmann/json.hpp>

#include "harness/core/json_input.h"
#include "harness/core/packed_u64.h"

namespace iofab {
namespace {

constexpr size_t kMaxIntervals = size_t{1} << 22;


}  // namespace

TimeSeries::TimeSeries(uint64_t interval_ns) : interval_ns_(std::max<uint64_t>(interval_ns, 1)) {}

void TimeSeries::add(uint64_t t_ns, uint64_t bytes) {
  const size_t i = static_cast<size_t>(std::min<uint64_t>(t_ns / interval_ns_, kMaxIntervals - 1));
  // resize grows capacity geometrically, so a run that fills intervals one by one allocates O(log n) times.
  if (i >= bytes_.size()) bytes_.resize(i + 1, 0);
  bytes_[i] += bytes;
}

void TimeSeries::merge(const TimeSeries& other) {
  if (other.interval_ns_ != interval_ns_) {
    for (size_t i = 0; i < other.bytes_.size(); ++i) {
      if (other.bytes_[i] != 0) add(i * other.interval_ns_, other.bytes_[i]);
    }
    return;
  }
  if (other.bytes_.size() > bytes_.size()) bytes_.resize(other.bytes_.size(), 0);
  for (size_t i = 0; i < other.bytes_.size(); ++i) bytes_[i] += other.bytes_[i];
}

std::vector<double> TimeSeries::rates() const {
  std::vector<double> out;
  out.reserve(bytes_.size());
  const double interval = static_cast<double>(interval_ns_);
  for (uint64_t b : bytes_) out.push_back(static_cast<double>(b) * 1e9 / interval);
  return out;
}

nlohmann::json TimeSeries::to_json() const { return {{"interval_ns", interval_ns_}, {"bytes", bytes_}}; }

nlohmann::json TimeSeries::to_wire() const { return {{"interval_ns", interval_ns_}, {"bytes", pack_u64(bytes_)}}; }

bool TimeSeries::from_json(const nlohmann::json& j) {
  if (!j.is_object()) return false;
  auto interval = j.find("interval_ns");
  auto bytes = j.find("bytes");
  uint64_t interval_ns = 0;
  if (interval == j.end() || !json_u64(*interval, &interval_ns) || interval_ns == 0) return false;
  std::vector<uint64_t> values;
  if (bytes == j.end() || !unpack_u64(*bytes, &values, kMaxIntervals)) return false;
  interval_ns_ = interval_ns;
  bytes_ = std::move(values);
  return true;
}

}  // namespace iofab
