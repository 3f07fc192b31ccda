// libFuzzer target: every unit parser, and the formatters on what parses.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "harness/core/units.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iofab::units;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto v = parse_size(text)) format_bytes(static_cast<double>(*v));
  if (auto v = parse_rate(text)) {
    if (!(*v >= 0) || std::isinf(*v)) __builtin_trap();  // the contract: finite and non-negative
    format_rate(*v);
  }
  if (auto v = parse_duration(text)) {
    if (!(*v >= 0) || std::isinf(*v)) __builtin_trap();
    format_duration(*v);
  }
  if (auto v = parse_count(text)) {
    if (!std::isfinite(*v)) __builtin_trap();
  }
  parse_fraction(text);
  return 0;
}
