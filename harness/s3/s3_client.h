// S3Client: S3 requests over HTTP, many in flight on reused connections.
// The implementation (s3_client_curl.cc) is libcurl's multi interface, which
// keeps the connections and signs each request with AWS SigV4
// (CURLOPT_AWS_SIGV4); it is built only when libcurl is found.
//
// A caller submits requests (never blocking: at most `connections` run at a
// time, the rest wait their turn) and collects results with wait(). 500, 503
// (SlowDown), 502, 504 and dropped connections are retried with exponential
// backoff up to max_retries; every try, retry and failure is counted in
// stats() by status code.
//
// Thread-safety: a client is used by one thread at a time; each worker owns
// one, as it owns its Engine.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.h"
#include "harness/s3/s3_config.h"
#include "harness/s3/s3_credentials.h"
#include "harness/stats/request_stats.h"

namespace iofab {

enum class S3Method { kGet, kPut, kPost, kDelete, kHead };
const char* s3_method_name(S3Method m);

struct S3Request {
  S3Method method = S3Method::kGet;
  std::string key;     // "" for the bucket itself (a list)
  std::string query;   // already encoded, names sorted ("partNumber=1&uploadId=x"), "" for none
  // PUT/POST: the body. `body` points at caller memory kept alive until the result comes, or, when
  // empty, at owned_body (small bodies the client keeps: CompleteMultipartUpload's XML).
  std::string_view body;
  std::string owned_body;
  // GET: where the response body goes (at most dest_len bytes; more is an error). nullptr: into
  // S3Result::text, which holds at most 16 MiB (list and error answers are small).
  char* dest = nullptr;
  uint64_t dest_len = 0;
  bool ranged = false;  // GET of [offset, offset + length)
  uint64_t offset = 0;
  uint64_t length = 0;
  uint64_t tag = 0;     // the caller's, handed back in the result
};

struct S3Result {
  uint64_t tag = 0;
  Status status;          // ok for 2xx; a person-readable error otherwise (s3_errors.h)
  long http_status = 0;   // 0 when no HTTP answer came
  uint64_t bytes = 0;     // body bytes received (GET) or sent (PUT/POST)
  std::string text;       // the body when the request had no dest (XML)
  std::string etag;       // the ETag header, quotes kept (UploadPart's answer)
  int64_t content_length = -1;  // the Content-Length header (a HEAD's object size); -1 when none came
};

class S3Client {
 public:
  S3Client() = default;
  S3Client(const S3Client&) = delete;
  S3Client& operator=(const S3Client&) = delete;
  virtual ~S3Client() = default;

  virtual const S3Config& config() const = 0;
  // Queues req; it starts when a connection is free.
  virtual Status submit(S3Request req) = 0;
  // Appends finished requests to *out until at least min_complete came (0: those finished now) or
  // none is left. The stop flag (set_stop), once set, ends the wait with Interrupted; the requests
  // still pending are dropped.
  virtual Status wait(unsigned min_complete, std::vector<S3Result>* out) = 0;
  // Requests submitted and not yet handed back by wait().
  virtual unsigned pending() const = 0;
  virtual const RequestStats& stats() const = 0;
  virtual void set_stop(const std::atomic<bool>* stop) = 0;

  // One request, start to end: submit + wait. Needs pending() == 0 (else Internal).
  Status perform(S3Request req, S3Result* out);
};

// A client for cfg signed with creds. Unavailable when built without libcurl.
Status make_s3_client(const S3Config& cfg, const S3Credentials& creds, std::unique_ptr<S3Client>* out);

}  // namespace iofab
