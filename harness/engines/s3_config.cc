#include "harness/engines/s3_config.h"

namespace iofab {
namespace {

constexpr std::string_view kScheme = "s3://";

// Bucket names as S3 allows them (3-63 of a-z 0-9 . -, starting and ending with a letter or digit):
// anything else could never be a bucket, and a '/' or '?' in it would change the URL.
bool valid_bucket(std::string_view b) {
  if (b.size() < 3 || b.size() > 63) return false;
  for (char c : b) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-')) return false;
  }
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  return alnum(b.front()) && alnum(b.back());
}

}  // namespace

bool is_s3_target(std::string_view target) { return target.starts_with(kScheme); }

Status parse_s3_target(std::string_view target, std::string* bucket, std::string* prefix) {
  const std::string form = "expected s3://bucket/prefix";
  if (!is_s3_target(target)) return Status::Invalid("target \"" + std::string(target) + "\": " + form);
  std::string_view rest = target.substr(kScheme.size());
  const size_t slash = rest.find('/');
  const std::string_view b = rest.substr(0, slash);
  if (!valid_bucket(b)) {
    return Status::Invalid("target \"" + std::string(target) + "\": bucket \"" + std::string(b) +
                           "\" is not a bucket name (3-63 of a-z, 0-9, '.', '-'); " + form);
  }
  std::string_view p = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  while (!p.empty() && p.back() == '/') p.remove_suffix(1);
  // The prefix becomes part of every key: the same rules as a store path, so no "..", no "//".
  size_t start = 0;
  while (!p.empty() && start <= p.size()) {
    const size_t next = p.find('/', start);
    const std::string_view part = p.substr(start, next == std::string_view::npos ? p.npos : next - start);
    if (part.empty() || part == "." || part == "..") {
      return Status::Invalid("target \"" + std::string(target) + "\": prefix \"" + std::string(p) +
                             "\" has an empty, \".\" or \"..\" component; " + form);
    }
    if (next == std::string_view::npos) break;
    start = next + 1;
  }
  *bucket = std::string(b);
  *prefix = std::string(p);
  return Status::Ok();
}

Status check_s3_endpoint(std::string_view endpoint) {
  const std::string form = "endpoint \"" + std::string(endpoint) +
                           "\": expected http://host[:port] or https://host[:port], nothing after";
  std::string_view rest;
  if (endpoint.starts_with("http://")) {
    rest = endpoint.substr(7);
  } else if (endpoint.starts_with("https://")) {
    rest = endpoint.substr(8);
  } else {
    return Status::Invalid(form);
  }
  if (rest.empty() || rest.front() == ':') return Status::Invalid(form);
  const size_t colon = rest.rfind(':');
  const std::string_view host = colon == std::string_view::npos ? rest : rest.substr(0, colon);
  for (char c : host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '-' || c == '_';
    if (!ok) return Status::Invalid(form);
  }
  if (colon != std::string_view::npos) {
    const std::string_view port = rest.substr(colon + 1);
    if (port.empty() || port.size() > 5) return Status::Invalid(form);
    unsigned v = 0;
    for (char c : port) {
      if (c < '0' || c > '9') return Status::Invalid(form);
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    if (v == 0 || v > 65535) return Status::Invalid(form);
  }
  return Status::Ok();
}

Status parse_s3_addressing(std::string_view text, S3Addressing* out) {
  if (text == "path") {
    *out = S3Addressing::kPath;
  } else if (text == "virtual") {
    *out = S3Addressing::kVirtualHost;
  } else {
    return Status::Invalid("addressing \"" + std::string(text) + "\": expected \"path\" or \"virtual\"");
  }
  return Status::Ok();
}

const char* s3_addressing_name(S3Addressing a) { return a == S3Addressing::kPath ? "path" : "virtual"; }

std::string s3_uri_encode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                       c == '_' || c == '.' || c == '~' || (keep_slash && c == '/');
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string s3_url(const S3Config& cfg, std::string_view key, std::string_view query) {
  std::string url;
  if (cfg.addressing == S3Addressing::kVirtualHost) {
    const size_t host_at = cfg.endpoint.find("://") + 3;
    url = cfg.endpoint.substr(0, host_at) + cfg.bucket + "." + cfg.endpoint.substr(host_at) + "/";
  } else {
    url = cfg.endpoint + "/" + cfg.bucket;
    if (!key.empty()) url += "/";
  }
  url += s3_uri_encode(key, true);
  if (!query.empty()) {
    url += "?";
    url += query;
  }
  return url;
}

}  // namespace iofab
