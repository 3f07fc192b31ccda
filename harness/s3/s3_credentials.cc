#include "harness/s3/s3_credentials.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "harness/core/input_file.h"

namespace iofab {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

// Reads an optional file: a missing one is not an error (most machines have only one of the two).
Status read_optional_ini(const std::string& path, bool* found, IniSections* out) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 && errno == ENOENT) {
    *found = false;
    return Status::Ok();
  }
  std::string text;
  if (Status s = read_input_file(path, kMaxConfigFileBytes, &text); !s.ok()) return s;
  *found = true;
  return parse_ini(text, path, out);
}

namespace {

bool take(const IniSections& ini, const std::string& section, const std::string& path, S3Credentials* out) {
  const auto it = ini.find(section);
  if (it == ini.end()) return false;
  const auto& kv = it->second;
  const auto id = kv.find("aws_access_key_id");
  const auto secret = kv.find("aws_secret_access_key");
  if (id == kv.end() || secret == kv.end() || id->second.empty() || secret->second.empty()) return false;
  out->key_id = id->second;
  out->secret = secret->second;
  const auto token = kv.find("aws_session_token");
  out->session_token = token == kv.end() ? "" : token->second;
  out->source = path + " [" + section + "]";
  return true;
}

}  // namespace

Status parse_ini(std::string_view text, std::string_view what, IniSections* out) {
  IniSections ini;
  std::string section;
  bool in_section = false;
  std::string parent;  // the key with no value that indented lines below it belong to
  size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const size_t nl = text.find('\n');
    const std::string_view raw = text.substr(0, nl);
    const bool indented = !raw.empty() && (raw.front() == ' ' || raw.front() == '\t');
    std::string_view line = trim(raw);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    const std::string where = std::string(what) + " line " + std::to_string(line_no);
    if (line.front() == '[') {
      if (line.back() != ']' || line.size() < 3) {
        return Status::Invalid(where + ": expected [section]");
      }
      section = std::string(trim(line.substr(1, line.size() - 2)));
      in_section = true;
      parent.clear();
      ini[section];
      continue;
    }
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) return Status::Invalid(where + ": expected key = value");
    if (!in_section) return Status::Invalid(where + ": a key before any [section]");
    const std::string key(trim(line.substr(0, eq)));
    if (key.empty()) return Status::Invalid(where + ": expected key = value");
    const std::string value(trim(line.substr(eq + 1)));
    if (indented && !parent.empty()) {
      ini[section][parent + "." + key] = value;
      continue;
    }
    parent = value.empty() ? key : "";
    ini[section][key] = value;
  }
  *out = std::move(ini);
  return Status::Ok();
}

EnvLookup process_env() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

AwsFiles aws_files(const EnvLookup& env) {
  auto get = [&](const char* name) {
    const char* v = env(name);
    return v == nullptr ? std::string() : std::string(v);
  };
  AwsFiles f;
  f.profile = get("AWS_PROFILE").empty() ? "default" : get("AWS_PROFILE");
  const std::string home = get("HOME");
  f.credentials_path = get("AWS_SHARED_CREDENTIALS_FILE");
  if (f.credentials_path.empty() && !home.empty()) f.credentials_path = home + "/.aws/credentials";
  f.config_path = get("AWS_CONFIG_FILE");
  if (f.config_path.empty() && !home.empty()) f.config_path = home + "/.aws/config";
  f.config_section = f.profile == "default" ? "default" : "profile " + f.profile;
  return f;
}

Status resolve_s3_credentials(const EnvLookup& env, S3Credentials* out) {
  auto get = [&](const char* name) {
    const char* v = env(name);
    return v == nullptr ? std::string() : std::string(v);
  };
  const AwsFiles files = aws_files(env);
  const std::string& profile = files.profile;
  const std::string& creds_path = files.credentials_path;
  const std::string& config_path = files.config_path;
  const std::string& config_section = files.config_section;

  S3Credentials c;
  IniSections config;
  bool have_config = false;
  if (!config_path.empty()) {
    if (Status s = read_optional_ini(config_path, &have_config, &config); !s.ok()) return s;
  }
  if (have_config) {
    const auto it = config.find(config_section);
    if (it != config.end() && it->second.contains("region")) c.region = it->second.at("region");
  }

  if (!get("AWS_ACCESS_KEY_ID").empty() && !get("AWS_SECRET_ACCESS_KEY").empty()) {
    c.key_id = get("AWS_ACCESS_KEY_ID");
    c.secret = get("AWS_SECRET_ACCESS_KEY");
    c.session_token = get("AWS_SESSION_TOKEN");
    c.source = "environment";
    *out = std::move(c);
    return Status::Ok();
  }
  if (!creds_path.empty()) {
    IniSections creds;
    bool have = false;
    if (Status s = read_optional_ini(creds_path, &have, &creds); !s.ok()) return s;
    if (have && take(creds, profile, creds_path, &c)) {
      *out = std::move(c);
      return Status::Ok();
    }
  }
  if (have_config && take(config, config_section, config_path, &c)) {
    *out = std::move(c);
    return Status::Ok();
  }
  return Status::Invalid("no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give profile \"" +
                         profile + "\" aws_access_key_id and aws_secret_access_key in " +
                         (creds_path.empty() ? std::string("~/.aws/credentials") : creds_path) + " or " +
                         (config_path.empty() ? std::string("~/.aws/config") : config_path));
}

}  // namespace iofab
