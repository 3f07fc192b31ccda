#include "harness/stats/io_tally.h"

namespace iofab {

using nlohmann::json;

void IoTally::merge(const IoTally& other) {
  bytes += other.bytes;
  ios += other.ios;
  if (other.start_ns != UINT64_MAX) span(other.start_ns, other.end_ns);
  latency.merge(other.latency);
  series.merge(other.series);
}

namespace {

// The tally's fields around its histogram and series, in either form.
json tally_json(const IoTally& t, json latency, json series) {
  return {{"bytes", t.bytes},
          {"ios", t.ios},
          {"start_ns", t.start_ns == UINT64_MAX ? json(nullptr) : json(t.start_ns)},
          {"end_ns", t.end_ns},
          {"latency", std::move(latency)},
          {"series", std::move(series)}};
}

}  // namespace

json IoTally::to_json() const { return tally_json(*this, latency.to_json(), series.to_json()); }

json IoTally::to_wire() const { return tally_json(*this, latency.to_wire(), series.to_wire()); }

bool IoTally::from_json(const json& j) {
  if (!j.is_object()) return false;
  for (const char* k : {"bytes", "ios", "end_ns"}) {
    if (!j.contains(k) || !j[k].is_number_unsigned()) return false;
  }
  if (!j.contains("start_ns") || !(j["start_ns"].is_null() || j["start_ns"].is_number_unsigned())) return false;
  if (!j.contains("latency") || !j.contains("series")) return false;
  IoTally t(series.interval_ns());
  t.bytes = j["bytes"].get<uint64_t>();
  t.ios = j["ios"].get<uint64_t>();
  t.start_ns = j["start_ns"].is_null() ? UINT64_MAX : j["start_ns"].get<uint64_t>();
  t.end_ns = j["end_ns"].get<uint64_t>();
  if (!t.latency.from_json(j["latency"]) || !t.series.from_json(j["series"])) return false;
  *this = std::move(t);
  return true;
}

json latency_summary_json(const Histogram& h) {
  return {{"count", h.count()},
          {"mean_s", h.mean() * 1e-9},
          {"min_s", h.min() * 1e-9},
          {"p50_s", h.percentile(0.50) * 1e-9},
          {"p90_s", h.percentile(0.90) * 1e-9},
          {"p99_s", h.percentile(0.99) * 1e-9},
          {"p999_s", h.percentile(0.999) * 1e-9},
          {"max_s", h.max() * 1e-9}};
}

}  // namespace iofab
