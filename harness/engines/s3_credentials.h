// S3 credentials from the places the AWS CLI and SDKs look, in their order:
// AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, then the
// profile (AWS_PROFILE, else "default") in ~/.aws/credentials
// (AWS_SHARED_CREDENTIALS_FILE), then in ~/.aws/config (AWS_CONFIG_FILE),
// where its section is "[profile NAME]" ("[default]" for default).
//
// The secret and the session token are for signing only: no message, report
// or log may carry them. Messages name the key id and where it came from.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "harness/core/status.h"

namespace iofab {

struct S3Credentials {
  std::string key_id;
  std::string secret;
  std::string session_token;  // "" when none
  std::string source;         // "environment", "/home/u/.aws/credentials [default]": for messages
  std::string region;         // the profile's region in the config file, "" when it names none
};

// An INI file as the AWS files write it: [section], key = value, '#' and ';' comment lines.
// Section and key names are kept as written (the AWS files are case-sensitive in practice).
using IniSections = std::map<std::string, std::map<std::string, std::string>>;
// Errors name the file (what) and the line; values are never quoted back (one could be a secret).
Status parse_ini(std::string_view text, std::string_view what, IniSections* out);

// The environment, injected so tests need not change the process's own.
using EnvLookup = std::function<const char*(const char*)>;
EnvLookup process_env();

// Resolves credentials as above. None found: InvalidArgument naming every place looked at.
Status resolve_s3_credentials(const EnvLookup& env, S3Credentials* out);

}  // namespace iofab
