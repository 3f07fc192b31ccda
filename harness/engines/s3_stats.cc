#include "harness/engines/s3_stats.h"

#include <nlohmann/json.hpp>

namespace iofab {

void S3Stats::merge(const S3Stats& o) {
  requests += o.requests;
  retries += o.retries;
  bytes_sent += o.bytes_sent;
  bytes_received += o.bytes_received;
  for (const auto& [k, v] : o.retried_by_status) retried_by_status[k] += v;
  for (const auto& [k, v] : o.errors_by_status) errors_by_status[k] += v;
  ttfb_ns.merge(o.ttfb_ns);
  latency_ns.merge(o.latency_ns);
}

nlohmann::json S3Stats::to_json() const {
  return {{"requests", requests},
          {"retries", retries},
          {"bytes_sent", bytes_sent},
          {"bytes_received", bytes_received},
          {"retried_by_status", retried_by_status},
          {"errors_by_status", errors_by_status},
          {"ttfb_ns", ttfb_ns.to_json()},
          {"latency_ns", latency_ns.to_json()}};
}

bool S3Stats::from_json(const nlohmann::json& j, S3Stats* out) {
  S3Stats s;
  if (!j.is_object()) return false;
  for (const char* k : {"requests", "retries", "bytes_sent", "bytes_received"}) {
    if (!j.contains(k) || !j[k].is_number_unsigned()) return false;
  }
  s.requests = j["requests"].get<uint64_t>();
  s.retries = j["retries"].get<uint64_t>();
  s.bytes_sent = j["bytes_sent"].get<uint64_t>();
  s.bytes_received = j["bytes_received"].get<uint64_t>();
  for (const char* k : {"retried_by_status", "errors_by_status"}) {
    if (!j.contains(k) || !j[k].is_object()) return false;
    auto& m = std::string(k) == "retried_by_status" ? s.retried_by_status : s.errors_by_status;
    for (const auto& [name, v] : j[k].items()) {
      if (!v.is_number_unsigned()) return false;
      m[name] = v.get<uint64_t>();
    }
  }
  if (!j.contains("ttfb_ns") || !s.ttfb_ns.from_json(j["ttfb_ns"])) return false;
  if (!j.contains("latency_ns") || !s.latency_ns.from_json(j["latency_ns"])) return false;
  *out = std::move(s);
  return true;
}

}  // namespace iofab
