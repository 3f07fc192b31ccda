// What a store's requests did, for a phase's metrics: counts, time to first
// byte and whole-request latency, retries and failures by status code. Any
// store that sends requests (the S3 store today, another object store's
// tomorrow) fills one; plain data, merged across workers and ranks.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/stats/histogram.h"

namespace iofab {

// Figures for the report. Status keys: the protocol's status ("503", "403", ...); transport failures
// "connect_refused", "dropped", "timeout", "resolve", "other".
struct RequestStats {
  uint64_t requests = 0;   // tries sent, retries included
  uint64_t retries = 0;
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  std::map<std::string, uint64_t> retried_by_status;  // tries that failed and were tried again
  std::map<std::string, uint64_t> errors_by_status;   // requests that failed for good
  Histogram ttfb_ns;        // request start to the first byte of the answer, every try
  Histogram latency_ns;     // request start to its last byte, every try
  // Multipart uploads whose abort failed: their parts stay in the bucket (and are billed) until someone
  // aborts them. The first kMaxAbortFailures as "key: why"; the count is whole.
  static constexpr size_t kMaxAbortFailures = 8;
  uint64_t aborts_failed = 0;
  std::vector<std::string> abort_failures;
  void note_failed_abort(std::string what);
  void merge(const RequestStats& o);
  nlohmann::json to_json() const;
  static bool from_json(const nlohmann::json& j, RequestStats* out);
};

}  // namespace iofab
