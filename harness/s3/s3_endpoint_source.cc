#include "harness/s3/s3_endpoint_source.h"

#include <cctype>
#include <optional>
#include <vector>

#include "harness/s3/s3_config.h"

namespace iofab {
namespace {

struct Found {
  std::string value;
  std::string source;
};

std::string env_value(const EnvLookup& env, const char* name) {
  const char* v = env(name);
  return v == nullptr ? std::string() : std::string(v);
}

// The profile's keys in the config file; empty when the file or the profile is not there.
struct ProfileKeys {
  std::map<std::string, std::string> keys;
  std::string where;  // "/home/u/.aws/config [profile dev]"
};

Status read_profile(const AwsFiles& files, ProfileKeys* out) {
  if (files.config_path.empty()) return Status::Ok();
  IniSections ini;
  bool found = false;
  if (Status s = read_optional_ini(files.config_path, &found, &ini); !s.ok()) return s;
  out->where = files.config_path + " [" + files.config_section + "]";
  if (!found) return Status::Ok();
  if (auto it = ini.find(files.config_section); it != ini.end()) out->keys = it->second;
  return Status::Ok();
}

// The first place in order that names a value.
std::optional<Found> first_of(const std::vector<Found>& places) {
  for (const auto& p : places) {
    if (!p.value.empty()) return p;
  }
  return std::nullopt;
}

std::string key_of(const ProfileKeys& p, const std::string& key) {
  const auto it = p.keys.find(key);
  return it == p.keys.end() ? std::string() : it->second;
}

// As botocore's utils.ensure_boolean reads a setting's text: "true" in any case, nothing else ("1" is
// false). The variable, when set (even empty), wins over the profile's key, as in its config chain.
bool ignore_configured_endpoints(const EnvLookup& env, const ProfileKeys& profile) {
  const char* var = env("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS");
  const std::string v =
      var != nullptr ? std::string(var) : key_of(profile, "ignore_configured_endpoint_urls");
  if (v.size() != 4) return false;
  std::string lower;
  for (char c : v) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "true";
}

}  // namespace

Status resolve_s3_endpoint(const std::string& suite_endpoint, const std::string& suite_region,
                           const EnvLookup& env, S3Endpoint* out) {
  const AwsFiles files = aws_files(env);
  ProfileKeys profile;
  if (Status s = read_profile(files, &profile); !s.ok()) return s;

  const std::optional<Found> region = first_of({
      {suite_region, "suite s3.region"},
      {env_value(env, "AWS_REGION"), "AWS_REGION"},
      {env_value(env, "AWS_DEFAULT_REGION"), "AWS_DEFAULT_REGION"},
      {key_of(profile, "region"), profile.where + " region"},
  });

  std::vector<Found> places = {{suite_endpoint, "suite s3.endpoint"}};
  // As the SDKs: this setting turns off the endpoints configured outside the code (here: the suite).
  const bool ignore_configured = ignore_configured_endpoints(env, profile);
  if (!ignore_configured) {
    places.push_back({env_value(env, "AWS_ENDPOINT_URL_S3"), "AWS_ENDPOINT_URL_S3"});
    places.push_back({env_value(env, "AWS_ENDPOINT_URL"), "AWS_ENDPOINT_URL"});
    places.push_back({key_of(profile, "s3.endpoint_url"), profile.where + " s3.endpoint_url"});
    places.push_back({key_of(profile, "endpoint_url"), profile.where + " endpoint_url"});
  }
  if (region) {
    places.push_back(
        {"https://s3." + region->value + ".amazonaws.com", "AWS's endpoint for " + region->source});
  }
  std::optional<Found> endpoint = first_of(places);
  if (!endpoint) {
    return Status::Invalid(
        "no S3 endpoint: set s3.endpoint in the suite, e.g. \"s3\": {\"endpoint\": "
        "\"http://127.0.0.1:9000\"}, "
        "or AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, or endpoint_url (or an \"s3 =\" sub-section's) under " +
        (profile.where.empty() ? std::string("the profile in ~/.aws/config") : profile.where) +
        ", or name a region (s3.region, AWS_REGION, AWS_DEFAULT_REGION, the profile's region) for AWS's own" +
        (ignore_configured ? " (AWS_IGNORE_CONFIGURED_ENDPOINT_URLS is set: the environment's and the config "
                             "file's endpoints are not read)"
                           : ""));
  }
  // The AWS tools take "http://host:9000/"; the trailing slash changes nothing there either.
  while (endpoint->value.size() > 1 && endpoint->value.back() == '/') endpoint->value.pop_back();
  if (Status s = check_s3_endpoint(endpoint->value); !s.ok()) {
    return Status::Invalid(endpoint->source + ": " + s.message());
  }
  out->endpoint = endpoint->value;
  out->endpoint_source = endpoint->source;
  out->region = region ? region->value : "us-east-1";
  out->region_source = region ? region->source : "default";
  return Status::Ok();
}

}  // namespace iofab
