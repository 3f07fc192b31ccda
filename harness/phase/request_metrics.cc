#include "harness/phase/request_metrics.h"

namespace iofab {

const std::vector<MetricInfo>& request_metric_infos() {
  static const std::vector<MetricInfo> kRows = {
      {.name = "requests",
       .unit = Unit::kCount,
       .better = Better::kNeither,
       .description = "object store: requests sent, retries included"},
      {.name = "requests_per_s",
       .unit = Unit::kCount,
       .better = Better::kHigher,
       .description = "object store: requests / the phase's I/O seconds"},
      {.name = "ttfb_p50_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "object store: request start to first byte back, median"},
      {.name = "ttfb_p99_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "object store: time to first byte, 99th percentile"},
      {.name = "request_latency_p50_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "object store: whole request, median"},
      {.name = "request_latency_p99_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "object store: whole request, 99th percentile"},
      {.name = "request_latency_max_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "object store: whole request, max"},
      {.name = "retries",
       .unit = Unit::kCount,
       .better = Better::kLower,
       .description = "object store: requests tried again (500, 503 SlowDown, dropped)"},
      {.name = "request_errors",
       .unit = Unit::kCount,
       .better = Better::kLower,
       .description = "object store: requests failed for good (by code: details)"},
  };
  return kRows;
}

bool is_request_metric(std::string_view name) {
  for (const MetricInfo& m : request_metric_infos()) {
    if (m.name == name) return true;
  }
  return false;
}

nlohmann::json take_request_stats_json(Store& store) {
  RequestStats s;
  if (!store.take_request_stats(&s)) return nullptr;
  return s.to_json();
}

bool merge_request_stats(const std::vector<nlohmann::json>& ranks, RequestStats* out) {
  bool any = false;
  RequestStats total;
  for (const auto& j : ranks) {
    RequestStats s;
    if (j.is_null() || !RequestStats::from_json(j, &s)) continue;
    total.merge(s);
    any = true;
  }
  *out = std::move(total);
  return any;
}

void put_request_metrics(const RequestStats& s, double seconds, PhaseResult* result) {
  auto& m = result->metrics;
  uint64_t errors = 0;
  for (const auto& [code, n] : s.errors_by_status) errors += n;
  m["requests"] = static_cast<double>(s.requests);
  m["requests_per_s"] = seconds > 0 ? static_cast<double>(s.requests) / seconds : 0.0;
  m["ttfb_p50_s"] = s.ttfb_ns.percentile(0.50) * 1e-9;
  m["ttfb_p99_s"] = s.ttfb_ns.percentile(0.99) * 1e-9;
  m["request_latency_p50_s"] = s.latency_ns.percentile(0.50) * 1e-9;
  m["request_latency_p99_s"] = s.latency_ns.percentile(0.99) * 1e-9;
  m["request_latency_max_s"] = s.latency_ns.max() * 1e-9;
  m["retries"] = static_cast<double>(s.retries);
  m["request_errors"] = static_cast<double>(errors);
  if (s.aborts_failed > 0) {
    std::string which;
    for (const auto& f : s.abort_failures) which += (which.empty() ? "" : "; ") + f;
    if (s.aborts_failed > s.abort_failures.size()) {
      which += "; and " + std::to_string(s.aborts_failed - s.abort_failures.size()) + " more";
    }
    result->warnings.push_back(
        std::to_string(s.aborts_failed) + " multipart upload" + (s.aborts_failed == 1 ? "" : "s") +
        " could not be aborted, so their parts stay in the bucket (billed) until aborted "
        "(aws s3api list-multipart-uploads, abort-multipart-upload): " +
        which);
  }
  result->details["requests"] = {{"retried_by_status", s.retried_by_status},
                                 {"errors_by_status", s.errors_by_status},
                                 {"bytes_sent", s.bytes_sent},
                                 {"bytes_received", s.bytes_received}};
}

}  // namespace iofab
