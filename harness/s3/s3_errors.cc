#include "harness/s3/s3_errors.h"

#include <algorithm>

namespace iofab {
namespace {

std::string decode_entities(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    static constexpr std::pair<std::string_view, char> kEntities[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    bool done = false;
    for (const auto& [name, c] : kEntities) {
      if (s.substr(i, name.size()) == name) {
        out += c;
        i += name.size() - 1;
        done = true;
        break;
      }
    }
    if (!done) out += '&';
  }
  return out;
}

std::string what_of(const S3ErrorContext& ctx) {
  std::string w = ctx.method + " s3://" + ctx.bucket;
  if (!ctx.key.empty()) w += "/" + ctx.key;
  return w;
}

std::string after_retries(unsigned retries) {
  return retries == 0 ? "" : " (after " + std::to_string(retries) + (retries == 1 ? " retry)" : " retries)");
}

}  // namespace

std::vector<std::string> s3_xml_all(std::string_view xml, std::string_view tag) {
  std::vector<std::string> out;
  const std::string open = "<" + std::string(tag) + ">";
  const std::string close = "</" + std::string(tag) + ">";
  size_t at = 0;
  for (;;) {
    const size_t b = xml.find(open, at);
    if (b == std::string_view::npos) break;
    const size_t e = xml.find(close, b + open.size());
    if (e == std::string_view::npos) break;
    out.push_back(decode_entities(xml.substr(b + open.size(), e - b - open.size())));
    at = e + close.size();
  }
  return out;
}

std::string s3_xml_text(std::string_view xml, std::string_view tag) {
  std::vector<std::string> all = s3_xml_all(xml, tag);
  return all.empty() ? std::string() : std::move(all.front());
}

bool s3_retryable(long http_status, S3Transport transport) {
  if (transport == S3Transport::kDropped || transport == S3Transport::kTimeout) return true;
  if (transport != S3Transport::kOk) return false;
  return http_status == 500 || http_status == 502 || http_status == 503 || http_status == 504;
}

int64_t s3_backoff_ns(unsigned attempt, int64_t base_ns, int64_t max_ns) {
  int64_t wait = base_ns;
  for (unsigned i = 1; i < attempt && wait < max_ns; ++i) wait *= 2;
  return std::min(wait, max_ns);
}

Status s3_http_error(const S3ErrorContext& ctx, long http_status, std::string_view body, unsigned retries) {
  const std::string code = s3_xml_text(body, "Code");
  const std::string message = s3_xml_text(body, "Message");
  const std::string head = what_of(ctx) + ": HTTP " + std::to_string(http_status) +
                           (code.empty() ? "" : " " + code) + after_retries(retries) + ": ";
  switch (http_status) {
    case 403:
      return Status::IoError(head + "access denied to key id " + ctx.key_id +
                             ": check the credentials (key id and secret) or the bucket policy" +
                             (message.empty() ? "" : " (server: " + message + ")"));
    case 404:
      if (code == "NoSuchBucket" || ctx.key.empty()) {
        return Status::IoError(head + "no bucket \"" + ctx.bucket + "\" at " + ctx.endpoint);
      }
      if (code == "NoSuchUpload") {
        return Status::IoError(head + "the multipart upload of key \"" + ctx.key + "\" is gone (aborted?)");
      }
      return Status::IoError(head + "no key \"" + ctx.key + "\" in bucket \"" + ctx.bucket + "\"");
    case 500:
    case 503:
      return Status::IoError(head + "the server is overloaded or failing; gave up" +
                             (message.empty() ? "" : " (server: " + message + ")"));
    default:
      return Status::IoError(head + (message.empty() ? "the server refused the request" : message));
  }
}

Status s3_transport_error(const S3ErrorContext& ctx, S3Transport transport, std::string_view detail,
                          unsigned retries) {
  const std::string head = what_of(ctx) + after_retries(retries) + ": ";
  switch (transport) {
    case S3Transport::kConnectRefused:
      return Status::IoError(head + "cannot connect to endpoint " + ctx.endpoint +
                             ": connection refused (is the server running, and the endpoint's port right?)");
    case S3Transport::kResolve:
      return Status::IoError(head + "cannot resolve the host of endpoint " + ctx.endpoint);
    case S3Transport::kTimeout:
      return Status::IoError(head + "endpoint " + ctx.endpoint + " timed out: " + std::string(detail));
    default:
      return Status::IoError(head + "endpoint " + ctx.endpoint + ": " + std::string(detail));
  }
}

}  // namespace iofab
