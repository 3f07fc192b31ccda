// Where an S3 client sends its requests: the endpoint, the bucket, the region
// that signs, and how the bucket is addressed. Parsed once from the suite's
// target settings, then passed down by value; nothing here talks to a server.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "harness/core/status.h"

namespace iofab {

// Path style puts the bucket in the path (http://host:9000/bucket/key): what
// MinIO, s3rver and most on-premise stores answer. Virtual-host style puts it
// in the host name (http://bucket.host/key): what AWS prefers.
enum class S3Addressing { kPath, kVirtualHost };

struct S3Config {
  std::string endpoint;  // "http://127.0.0.1:9000": scheme, host and port, no path
  std::string region = "us-east-1";
  S3Addressing addressing = S3Addressing::kPath;
  std::string bucket;
  unsigned connections = 8;    // requests in flight per client (per worker)
  unsigned max_retries = 5;    // 500 and 503 SlowDown, and dropped connections
  int64_t backoff_base_ns = 50'000'000;   // the first retry waits this, then doubles
  int64_t backoff_max_ns = 2'000'000'000;
  int64_t connect_timeout_ns = 10'000'000'000;
  // A stalled request ends its try (then is retried, up to max_retries): no answer's first byte this long
  // after the request went out whole, or under low_speed_limit bytes/s for low_speed_time (libcurl's
  // CURLOPT_LOW_SPEED_*). The suite's s3.first_byte_timeout, s3.low_speed_limit and s3.low_speed_time.
  int64_t first_byte_timeout_ns = 15'000'000'000;
  uint64_t low_speed_limit = 1024;
  int64_t low_speed_time_ns = 15'000'000'000;
  // Told each time one of the limits above ends a try, with a line naming the request and the limit
  // (the runner prints it, so a stall is seen when it happens, not after every retry). May be empty.
  std::function<void(const std::string&)> on_stall;
};

// "s3://bucket/prefix/more" -> bucket "bucket", prefix "prefix/more" (no trailing '/';
// "" for the bucket root). Errors name the expected form.
Status parse_s3_target(std::string_view target, std::string* bucket, std::string* prefix);
bool is_s3_target(std::string_view target);

// An endpoint is http:// or https://, a host, an optional port, nothing after. InvalidArgument names
// the field ("endpoint") and the expected form.
Status check_s3_endpoint(std::string_view endpoint);
// True when a valid endpoint's host is an IP address (IPv4, or IPv6 in brackets): no bucket can be put in
// front of it as virtual-host addressing does.
bool s3_endpoint_host_is_ip(std::string_view endpoint);
// The scheme, host and port requests go to: the endpoint, or with virtual-host addressing the bucket's host
// in front of it (http://bench.s3.example:9000). Errors name this: it is what was tried.
std::string s3_endpoint_used(const S3Config& cfg);
Status parse_s3_addressing(std::string_view text, S3Addressing* out);
const char* s3_addressing_name(S3Addressing a);

// S3's URI encoding (RFC 3986 unreserved kept; '/' kept when keep_slash, as in a key).
std::string s3_uri_encode(std::string_view text, bool keep_slash);
// The URL of key ("" for the bucket itself) with query (already encoded and sorted, or "").
std::string s3_url(const S3Config& cfg, std::string_view key, std::string_view query);

}  // namespace iofab
