// What an S3 failure means to a person: an HTTP status and S3's error code
// turned into a Status that says what to check, and which failures are worth
// a retry. No libcurl here, so the mapping is tested without a server.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.h"

namespace iofab {

// What a request was, for messages. Never the secret: only the key id.
struct S3ErrorContext {
  std::string method;    // "GET"
  std::string endpoint;  // "http://127.0.0.1:9000"
  std::string bucket;
  std::string key;       // "" for a bucket-level request
  std::string key_id;
};

// How the request ended below HTTP.
enum class S3Transport { kOk, kConnectRefused, kResolve, kTimeout, kDropped, kOther };

// The text of the first <tag>...</tag> in S3's XML ("" when absent), XML entities decoded.
std::string s3_xml_text(std::string_view xml, std::string_view tag);
// Every <tag>...</tag> at any depth, in order (ListObjectsV2's Contents).
std::vector<std::string> s3_xml_all(std::string_view xml, std::string_view tag);

// 500, 502, 503 (SlowDown), 504 and connections dropped mid-request are retried; nothing else is.
bool s3_retryable(long http_status, S3Transport transport);
// The wait before retry number attempt (1, 2, ...): base doubled each time, at most max.
int64_t s3_backoff_ns(unsigned attempt, int64_t base_ns, int64_t max_ns);

// A failed HTTP answer as a phase error (IoError): 403 names the key id and says credentials or
// policy, 404 says bucket or key and names it, others give S3's code and message.
Status s3_http_error(const S3ErrorContext& ctx, long http_status, std::string_view body, unsigned retries);
// A request that got no HTTP answer: connection refused names the endpoint.
Status s3_transport_error(const S3ErrorContext& ctx, S3Transport transport, std::string_view detail,
                          unsigned retries);

}  // namespace iofab
