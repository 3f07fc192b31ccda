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
// A key with no value opens a sub-section of the indented lines below it, kept as "parent.key":
//   s3 =
//     endpoint_url = http://127.0.0.1:9000      -> "s3.endpoint_url"
using IniSections = std::map<std::string, std::map<std::string, std::string>>;
// Errors name the file (what) and the line; values are never quoted back (one could be a secret).
Status parse_ini(std::string_view text, std::string_view what, IniSections* out);

// The environment, injected so tests need not change the process's own.
using EnvLookup = std::function<const char*(const char*)>;
EnvLookup process_env();

// The AWS files and the profile as the environment names them: AWS_PROFILE (else "default"),
// AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE (else under $HOME/.aws; "" when neither is known).
struct AwsFiles {
  std::string profile;
  std::string credentials_path;
  std::string config_path;
  std::string config_section;  // "default" or "profile NAME"
};
AwsFiles aws_files(const EnvLookup& env);
// Reads an INI file that may be missing: *found false and Ok when it is.
Status read_optional_ini(const std::string& path, bool* found, IniSections* out);

// Resolves credentials as above. None found: InvalidArgument naming every place looked at.
Status resolve_s3_credentials(const EnvLookup& env, S3Credentials* out);

}  // namespace iofab
