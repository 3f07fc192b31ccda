// Suites shipped in workloads/suites/, embedded at build time.
#pragma once

#include <string_view>
#include <vector>

namespace iofab {

struct EmbeddedSuite {
  std::string_view name;  // file name without .json
  std::string_view text;
};

const std::vector<EmbeddedSuite>& embedded_suites();

}  // namespace iofab
