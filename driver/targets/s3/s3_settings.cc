#include "driver/targets/s3/s3_settings.h"

#include "driver/suite/suite.h"

#include "harness/core/units.h"
#include "harness/core/whole_number.h"
#include "harness/phase/params.h"

namespace iofab {
namespace {

using nlohmann::json;

bool read_count(const json& j, const char* key, unsigned lo, unsigned hi, unsigned* out,
                std::vector<std::string>* errors) {
  if (!j.contains(key)) return true;
  const json& v = j[key];
  const std::optional<int64_t> n = whole_number(v);  // 1e1 and 4.0 too, as in the phases
  if (!n || *n < lo || *n > hi) {
    errors->push_back(std::string("s3.") + key + ": expected an integer " + std::to_string(lo) + ".." +
                      std::to_string(hi) + ", got " + describe_json_value(v));
    return false;
  }
  *out = static_cast<unsigned>(*n);
  return true;
}

void check_known_keys(const json& j, std::vector<std::string>* errors) {
  static const char* const kKeys[] = {
      "endpoint",           "region",          "addressing",    "part_size",
      "parallel_parts",     "connections",     "max_retries",   "allow_bucket_root",
      "first_byte_timeout", "low_speed_limit", "low_speed_time"};
  for (const auto& [k, v] : j.items()) {
    bool known = false;
    for (const char* key : kKeys) known = known || k == key;
    if (!known) {
      errors->push_back("s3." + k +
                        ": unknown key; expected endpoint, region, addressing, part_size, "
                        "parallel_parts, connections, max_retries, allow_bucket_root, first_byte_timeout, "
                        "low_speed_limit, low_speed_time");
    }
  }
}

// endpoint, region and addressing: where the requests go.
void read_address(const json& j, S3Settings* s, std::vector<std::string>* errors) {
  if (j.contains("endpoint")) {
    if (!j["endpoint"].is_string()) {
      errors->push_back("s3.endpoint: expected a URL like \"http://127.0.0.1:9000\", got " +
                        describe_json_value(j["endpoint"]));
    } else if (Status st = check_s3_endpoint(j["endpoint"].get<std::string>()); !st.ok()) {
      errors->push_back("s3." + st.message());
    } else {
      s->endpoint = j["endpoint"].get<std::string>();
    }
  }
  if (j.contains("region")) {
    const json& v = j["region"];
    if (!v.is_string() || v.get<std::string>().empty() ||
        v.get<std::string>().find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos) {
      errors->push_back("s3.region: expected a region name like \"us-east-1\", got " + describe_json_value(v));
    } else {
      s->region = v.get<std::string>();
    }
  }
  if (j.contains("addressing")) {
    const json& v = j["addressing"];
    Status st = v.is_string() ? parse_s3_addressing(v.get<std::string>(), &s->addressing)
                              : Status::Invalid("addressing: expected \"path\" or \"virtual\"");
    if (!st.ok()) errors->push_back("s3." + st.message() + (v.is_string() ? "" : ", got " + describe_json_value(v)));
  }
  if (s->addressing == S3Addressing::kVirtualHost && !s->endpoint.empty() && s3_endpoint_host_is_ip(s->endpoint)) {
    // bucket.127.0.0.1 is no host: every request would fail to resolve a name nobody chose.
    errors->push_back(
        "s3.addressing: \"virtual\" puts the bucket in the endpoint's host name "
        "(<bucket>.<host>), but the endpoint " +
        s->endpoint +
        " is an IP address, which has no name to put it in; expected addressing \"path\", or an "
        "endpoint with a host name");
  }
}

// part_size, parallel_parts, connections, max_retries, allow_bucket_root: how the requests are cut.
void read_transfer(const json& j, S3Settings* s, std::vector<std::string>* errors) {
  if (j.contains("part_size")) {
    const json& v = j["part_size"];
    std::optional<uint64_t> bytes;
    if (v.is_string()) bytes = units::parse_size(v.get<std::string>());
    if (v.is_number_unsigned()) bytes = v.get<uint64_t>();
    // S3 takes parts of 5 MiB to 5 GiB (the last may be smaller).
    if (!bytes || *bytes < (5ULL << 20) || *bytes > (5ULL << 30)) {
      errors->push_back("s3.part_size: expected a size from 5MiB to 5GiB (S3's part limits) like \"8MiB\", got " +
                        describe_json_value(v));
    } else {
      s->part_size = *bytes;
    }
  }
  read_count(j, "parallel_parts", 1, 256, &s->parallel_parts, errors);
  read_count(j, "connections", 1, 1024, &s->connections, errors);
  read_count(j, "max_retries", 0, 100, &s->max_retries, errors);
  if (j.contains("allow_bucket_root")) {
    if (!j["allow_bucket_root"].is_boolean()) {
      errors->push_back("s3.allow_bucket_root: expected true or false, got " + describe_json_value(j["allow_bucket_root"]));
    } else {
      s->allow_bucket_root = j["allow_bucket_root"].get<bool>();
    }
  }
}

// first_byte_timeout, low_speed_time, low_speed_limit: when a stalled request ends its try.
void read_stall_limits(const json& j, S3Settings* s, std::vector<std::string>* errors) {
  // A limit under a second would end healthy requests on a loaded server; over an hour it is no limit.
  for (auto [key, field] : {std::pair{"first_byte_timeout", &s->first_byte_timeout_s},
                            std::pair{"low_speed_time", &s->low_speed_time_s}}) {
    if (!j.contains(key)) continue;
    const json& v = j[key];
    std::optional<double> t;
    if (v.is_string()) t = units::parse_duration(v.get<std::string>());
    if (v.is_number()) t = v.get<double>();
    if (!t || !(*t >= 1 && *t <= 3600)) {
      errors->push_back(std::string("s3.") + key + ": expected a duration from 1s to 1h like \"15s\", got " +
                        describe_json_value(v));
    } else {
      *field = *t;
    }
  }
  if (j.contains("low_speed_limit")) {
    const json& v = j["low_speed_limit"];
    std::optional<double> r;
    if (v.is_string()) r = units::parse_rate(v.get<std::string>());
    if (v.is_number()) r = v.get<double>();
    if (!r || !(*r >= 1 && *r <= 1e12)) {
      errors->push_back("s3.low_speed_limit: expected a rate from 1 byte/s to 1TB/s like \"1KiB/s\", got " +
                        describe_json_value(v));
    } else {
      s->low_speed_limit = static_cast<uint64_t>(*r);
    }
  }
}

}  // namespace

void parse_s3_settings(const json& j, S3Settings* out, std::vector<std::string>* errors) {
  S3Settings s;
  s.given = true;
  if (!j.is_object()) {
    errors->push_back("s3: expected an object like {\"endpoint\": \"http://127.0.0.1:9000\"}, got " +
                      describe_json_value(j));
    return;
  }
  check_known_keys(j, errors);
  read_address(j, &s, errors);
  read_transfer(j, &s, errors);
  read_stall_limits(j, &s, errors);
  *out = std::move(s);
}

void check_s3_section(const nlohmann::json& j, std::vector<std::string>* errors) {
  S3Settings unused;
  parse_s3_settings(j, &unused, errors);
}

S3Settings s3_settings_of(const Suite& suite) {
  S3Settings out;
  auto it = suite.target_settings.find("s3");
  if (it == suite.target_settings.end()) return out;
  std::vector<std::string> checked_when_read;
  parse_s3_settings(it->second, &out, &checked_when_read);
  return out;
}

}  // namespace iofab
