#include "harness/stats/request_stats.h"

#include <nlohmann/json.hpp>

namespace iofab {

void RequestStats::merge(const RequestStats& o) {
  requests += o.requests;
  retries += o.retries;
  bytes_sent += o.bytes_sent;
  bytes_received += o.bytes_received;
  for (const auto& [k, v] : o.retried_by_status) retried_by_status[k] += v;
  for (const auto& [k, v] : o.errors_by_status) errors_by_status[k] += v;
  ttfb_ns.merge(o.ttfb_ns);
  latency_ns.merge(o.latency_ns);
  aborts_failed += o.aborts_failed;
  for (const auto& f : o.abort_failures) {
    if (abort_failures.size() < kMaxAbortFailures) abort_failures.push_back(f);
  }
}

void RequestStats::note_failed_abort(std::string what) {
  ++aborts_failed;
  if (abort_failures.size() < kMaxAbortFailures) abort_failures.push_back(std::move(what));
}

nlohmann::json RequestStats::to_json() const {
  return {{"requests", requests},
          {"retries", retries},
          {"bytes_sent", bytes_sent},
          {"bytes_received", bytes_received},
          {"retried_by_status", retried_by_status},
          {"errors_by_status", errors_by_status},
          {"ttfb_ns", ttfb_ns.to_json()},
          {"latency_ns", latency_ns.to_json()},
          {"aborts_failed", aborts_failed},
          {"abort_failures", abort_failures}};
}

bool RequestStats::from_json(const nlohmann::json& j, RequestStats* out) {
  RequestStats s;
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
  if (j.contains("aborts_failed")) {
    if (!j["aborts_failed"].is_number_unsigned() || !j.contains("abort_failures") ||
        !j["abort_failures"].is_array()) {
      return false;
    }
    s.aborts_failed = j["aborts_failed"].get<uint64_t>();
    for (const auto& f : j["abort_failures"]) {
      if (!f.is_string()) return false;
      if (s.abort_failures.size() < kMaxAbortFailures) s.abort_failures.push_back(f.get<std::string>());
    }
  }
  *out = std::move(s);
  return true;
}

}  // namespace iofab
