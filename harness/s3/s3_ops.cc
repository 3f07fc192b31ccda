#include "harness/s3/s3_ops.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <set>

#include "harness/s3/s3_errors.h"

namespace iofab {
namespace {

// Waits for every pending request, keeping the first error (the others still finish, so no
// connection is left mid-request).
Status drain(S3Client& c, std::vector<S3Result>* results) {
  Status first;
  while (c.pending() > 0) {
    std::vector<S3Result> done;
    if (Status s = c.wait(1, &done); !s.ok()) return s;
    for (S3Result& r : done) {
      first.update(r.status);
      if (results != nullptr) results->push_back(std::move(r));
    }
  }
  return first;
}

}  // namespace

int64_t s3_time_unix_ns(const std::string& text) {
  std::tm tm{};
  int frac_end = 0;
  double seconds = 0;
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%lf%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &seconds, &frac_end) != 6 ||
      text.substr(static_cast<size_t>(frac_end)) != "Z" || seconds < 0 || seconds >= 61) {
    return 0;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  tm.tm_sec = static_cast<int>(seconds);
  const time_t whole = timegm(&tm);
  if (whole == static_cast<time_t>(-1)) return 0;
  return static_cast<int64_t>(whole) * 1'000'000'000 + static_cast<int64_t>((seconds - tm.tm_sec) * 1e9);
}

std::string s3_part_query(const S3Upload& up, unsigned part) {
  return "partNumber=" + std::to_string(part) + "&uploadId=" + s3_uri_encode(up.upload_id, false);
}

Status s3_begin_upload(S3Client& c, std::string_view key, S3Upload* up) {
  S3Request req;
  req.method = S3Method::kPost;
  req.key = std::string(key);
  req.query = "uploads=";
  S3Result r;
  if (Status s = c.perform(std::move(req), &r); !s.ok()) return s;
  up->key = std::string(key);
  up->upload_id = s3_xml_text(r.text, "UploadId");
  up->etags.clear();
  if (up->upload_id.empty()) {
    return Status::IoError("POST s3://" + c.config().bucket + "/" + std::string(key) +
                           "?uploads: the answer has no UploadId");
  }
  return Status::Ok();
}

std::string s3_complete_body(const S3Upload& up) {
  std::string xml = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < up.etags.size(); ++i) {
    xml += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" + up.etags[i] + "</ETag></Part>";
  }
  xml += "</CompleteMultipartUpload>";
  return xml;
}

Status s3_complete_upload(S3Client& c, const S3Upload& up) {
  S3Request req;
  req.method = S3Method::kPost;
  req.key = up.key;
  req.query = "uploadId=" + s3_uri_encode(up.upload_id, false);
  req.owned_body = s3_complete_body(up);
  S3Result r;
  if (Status s = c.perform(std::move(req), &r); !s.ok()) return s;
  // S3 may answer 200 and still fail the completion, with an <Error> in the body.
  if (r.text.find("<Error>") != std::string::npos) {
    S3ErrorContext ctx{"POST", s3_endpoint_used(c.config()), c.config().bucket, up.key, ""};
    return s3_http_error(ctx, 500, r.text, 0);
  }
  return Status::Ok();
}

Status s3_abort_upload(S3Client& c, const S3Upload& up) {
  S3Request req;
  req.method = S3Method::kDelete;
  req.key = up.key;
  req.query = "uploadId=" + s3_uri_encode(up.upload_id, false);
  S3Result r;
  return c.perform(std::move(req), &r);
}

Status s3_upload(S3Client& c, std::string_view key, std::string_view data, uint64_t part_size,
                 unsigned parallel_parts) {
  if (part_size == 0 || parallel_parts == 0) return Status::Invalid("s3: part_size and parallel_parts must be > 0");
  if (data.size() <= part_size) {
    S3Request req;
    req.method = S3Method::kPut;
    req.key = std::string(key);
    req.body = data;
    S3Result r;
    return c.perform(std::move(req), &r);
  }
  S3Upload up;
  if (Status s = s3_begin_upload(c, key, &up); !s.ok()) return s;
  const uint64_t parts = (data.size() + part_size - 1) / part_size;
  up.etags.assign(parts, "");
  Status first;
  uint64_t next = 0;
  while (first.ok() && (next < parts || c.pending() > 0)) {
    while (next < parts && c.pending() < parallel_parts) {
      S3Request req;
      req.method = S3Method::kPut;
      req.key = up.key;
      req.query = s3_part_query(up, static_cast<unsigned>(next + 1));
      req.body = data.substr(next * part_size, part_size);
      req.tag = next;
      first.update(c.submit(std::move(req)));
      ++next;
    }
    std::vector<S3Result> done;
    first.update(c.wait(1, &done));
    for (S3Result& r : done) {
      first.update(r.status);
      if (r.status.ok()) up.etags[r.tag] = r.etag;
    }
  }
  if (first.ok()) first.update(drain(c, nullptr));
  if (first.ok()) return s3_complete_upload(c, up);
  if (first.code() != Status::Code::kInterrupted) {
    // The upload's first error is what the caller needs; an abort that fails too is said after it, as
    // its parts stay in the bucket.
    drain(c, nullptr).ignore_error();
    if (Status a = s3_abort_upload(c, up); !a.ok()) {
      return Status::FromCode(first.code(), first.message() +
                                                "; aborting the upload failed too, so its parts "
                                                "stay in the bucket under key \"" +
                                                up.key + "\": " + a.message());
    }
  }
  return first;
}

Status s3_get_range(S3Client& c, std::string_view key, uint64_t offset, char* dest, uint64_t len, uint64_t* got) {
  S3Request req;
  req.method = S3Method::kGet;
  req.key = std::string(key);
  req.ranged = true;
  req.offset = offset;
  req.length = len;
  req.dest = dest;
  req.dest_len = len;
  S3Result r;
  Status s = c.perform(std::move(req), &r);
  *got = r.bytes;
  return s;
}

Status s3_list(S3Client& c, std::string_view prefix, std::vector<S3Object>* out) {
  std::vector<S3Object> all;
  std::string token;
  // Every token the server gave: one given again would page the same listing for ever.
  std::set<std::string> tokens;
  const std::string what =
      "LIST s3://" + c.config().bucket + "/" + std::string(prefix) + " at " + c.config().endpoint;
  for (;;) {
    S3Request req;
    req.method = S3Method::kGet;
    // Names sorted, as SigV4's canonical query wants them.
    if (!token.empty()) req.query = "continuation-token=" + s3_uri_encode(token, false) + "&";
    req.query += "list-type=2&prefix=" + s3_uri_encode(prefix, false);
    S3Result r;
    if (Status s = c.perform(std::move(req), &r); !s.ok()) return s;
    for (const std::string& item : s3_xml_all(r.text, "Contents")) {
      S3Object o;
      o.key = s3_xml_text(item, "Key");
      o.size = std::strtoull(s3_xml_text(item, "Size").c_str(), nullptr, 10);
      o.modified_unix_ns = s3_time_unix_ns(s3_xml_text(item, "LastModified"));
      // Callers take the part after the prefix: a key outside it is the server's error, not a key of ours.
      if (!o.key.starts_with(prefix)) {
        return Status::IoError(what + ": the server listed key \"" + o.key +
                               "\", which is not under the prefix asked for; the server is misbehaving");
      }
      all.push_back(std::move(o));
    }
    token = s3_xml_text(r.text, "NextContinuationToken");
    if (s3_xml_text(r.text, "IsTruncated") != "true" || token.empty()) break;
    if (!tokens.insert(token).second) {
      const std::string shown = token.size() > 80 ? token.substr(0, 80) + "..." : token;
      return Status::IoError(what + ": page " + std::to_string(tokens.size() + 1) +
                             " came with continuation token \"" + shown +
                             "\", which an earlier page gave; the listing would never end (the server is "
                             "misbehaving)");
    }
  }
  *out = std::move(all);
  return Status::Ok();
}

Status s3_delete_keys(S3Client& c, const std::vector<std::string>& keys) {
  Status first;
  size_t next = 0;
  while (next < keys.size() || c.pending() > 0) {
    while (next < keys.size() && c.pending() < c.config().connections) {
      S3Request req;
      req.method = S3Method::kDelete;
      req.key = keys[next++];
      first.update(c.submit(std::move(req)));
    }
    std::vector<S3Result> done;
    if (Status s = c.wait(1, &done); !s.ok()) return s;
    for (const S3Result& r : done) {
      // A key another cleanup removed first is what we wanted.
      if (r.http_status != 404) first.update(r.status);
    }
  }
  return first;
}

Status s3_delete_prefix(S3Client& c, std::string_view prefix, uint64_t* deleted) {
  if (prefix.empty() || prefix.back() != '/') {
    return Status::Internal("s3: delete_prefix(\"" + std::string(prefix) + "\"): expected a prefix ending in '/'");
  }
  std::vector<S3Object> objects;
  if (Status s = s3_list(c, prefix, &objects); !s.ok()) return s;
  std::vector<std::string> keys;
  for (S3Object& o : objects) {
    if (o.key.starts_with(prefix)) keys.push_back(std::move(o.key));
  }
  if (Status s = s3_delete_keys(c, keys); !s.ok()) return s;
  if (deleted != nullptr) *deleted = keys.size();
  return Status::Ok();
}

}  // namespace iofab
