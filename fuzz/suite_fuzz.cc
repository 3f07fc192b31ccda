// libFuzzer target: the suite parser must answer any input with a Status,
// never a crash, hang or sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "driver/suite/suite.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // The first line, when it starts with "--set ", is a --set override, so the override path is fuzzed too.
  std::vector<std::string> sets;
  if (text.rfind("--set ", 0) == 0) {
    auto nl = text.find('\n');
    sets.emplace_back(text.substr(6, nl == std::string_view::npos ? std::string_view::npos : nl - 6));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  iofab::Suite suite;
  iofab::Status s = iofab::parse_suite(text, "fuzz", sets, &suite);
  if (s.ok() && suite.phases.empty()) __builtin_trap();  // a valid suite always has phases
  return 0;
}
