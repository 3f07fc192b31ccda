#include "harness/s3/s3_config.h"

#include <arpa/inet.h>
#include <netinet/in.h>

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

namespace {

// An endpoint's parts: "http://", the host as written ("[::1]" for IPv6), and the port text ("" for none).
struct EndpointParts {
  std::string_view scheme, host, port;
};

bool split_endpoint(std::string_view endpoint, EndpointParts* out) {
  const size_t sep = endpoint.find("://");
  if (sep == std::string_view::npos) return false;
  out->scheme = endpoint.substr(0, sep + 3);
  std::string_view rest = endpoint.substr(sep + 3);
  if (!rest.empty() && rest.front() == '[') {
    // An IPv6 literal in brackets (RFC 3986): its colons are not the port's.
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) return false;
    out->host = rest.substr(0, close + 1);
    rest.remove_prefix(close + 1);
    if (!rest.empty() && rest.front() != ':') return false;
    out->port = rest.empty() ? rest : rest.substr(1);
    return rest.empty() || !out->port.empty();
  }
  const size_t colon = rest.rfind(':');
  out->host = colon == std::string_view::npos ? rest : rest.substr(0, colon);
  out->port = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  return colon == std::string_view::npos || !out->port.empty();
}

bool valid_host(std::string_view host) {
  if (host.empty()) return false;
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return false;
    const std::string inside(host.substr(1, host.size() - 2));
    in6_addr a{};
    return inet_pton(AF_INET6, inside.c_str(), &a) == 1;
  }
  for (char c : host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

bool valid_port(std::string_view port) {
  if (port.empty() || port.size() > 5) return false;
  unsigned v = 0;
  for (char c : port) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  return v > 0 && v <= 65535;
}

}  // namespace

Status check_s3_endpoint(std::string_view endpoint) {
  const std::string form =
      "endpoint \"" + std::string(endpoint) +
      "\": expected http://host[:port] or https://host[:port] (an IPv6 address in brackets: "
      "http://[::1]:9000), nothing after";
  if (!endpoint.starts_with("http://") && !endpoint.starts_with("https://")) return Status::Invalid(form);
  EndpointParts parts;
  if (!split_endpoint(endpoint, &parts) || !valid_host(parts.host)) return Status::Invalid(form);
  if (!parts.port.empty() && !valid_port(parts.port)) return Status::Invalid(form);
  return Status::Ok();
}

bool s3_endpoint_host_is_ip(std::string_view endpoint) {
  EndpointParts parts;
  if (!split_endpoint(endpoint, &parts)) return false;
  if (parts.host.starts_with("[")) return true;
  const std::string host(parts.host);
  in_addr a{};
  return inet_pton(AF_INET, host.c_str(), &a) == 1;
}

std::string s3_endpoint_used(const S3Config& cfg) {
  if (cfg.addressing != S3Addressing::kVirtualHost) return cfg.endpoint;
  const size_t host_at = cfg.endpoint.find("://");
  if (host_at == std::string::npos) return cfg.endpoint;
  return cfg.endpoint.substr(0, host_at + 3) + cfg.bucket + "." + cfg.endpoint.substr(host_at + 3);
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
    url = s3_endpoint_used(cfg) + "/";
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
