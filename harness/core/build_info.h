// What was built: the report's `tool` block and `iofab --version`.
#pragma once

namespace iofab {

struct BuildInfo {
  const char* version;
  const char* git_sha;
  const char* compiler;
  const char* build_type;
  const char* backends;  // comma-separated backends compiled in
};

const BuildInfo& build_info();

}  // namespace iofab
