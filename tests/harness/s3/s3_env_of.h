// An environment for the S3 settings' readers in tests: a fixed map instead of the process's variables.
#pragma once

#include <map>
#include <string>

#include "harness/s3/s3_credentials.h"

namespace iofab::testing {

inline EnvLookup env_of(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

}  // namespace iofab::testing
