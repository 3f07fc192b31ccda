#include "harness/s3/s3_client.h"

namespace iofab {

const char* s3_method_name(S3Method m) {
  switch (m) {
    case S3Method::kGet: return "GET";
    case S3Method::kPut: return "PUT";
    case S3Method::kPost: return "POST";
    case S3Method::kDelete: return "DELETE";
    case S3Method::kHead: return "HEAD";
  }
  return "?";
}

Status S3Client::perform(S3Request req, S3Result* out) {
  if (pending() != 0) return Status::Internal("s3: perform() with requests pending");
  if (Status s = submit(std::move(req)); !s.ok()) return s;
  std::vector<S3Result> done;
  if (Status s = wait(1, &done); !s.ok()) return s;
  if (done.size() != 1) return Status::Internal("s3: perform() got " + std::to_string(done.size()) + " results");
  *out = std::move(done.front());
  return out->status;
}

#ifndef IOFAB_HAVE_CURL
Status make_s3_client(const S3Config&, const S3Credentials&, std::unique_ptr<S3Client>*) {
  return Status::Unavailable("s3: not built: libcurl was not found at build time (apt-get install libcurl4-openssl-dev)");
}
#endif

}  // namespace iofab
