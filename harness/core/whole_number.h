// A JSON number that is an exact integer, whatever notation wrote it: 1000, 1e3 and 1000.0 are the
// same number to JSON (RFC 8259 gives no integer type), so an integer field takes each of them.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

namespace iofab {

// The value of v when it is a number without a fraction that fits an int64_t; nullopt otherwise
// (a string, 2.5, 1e300). A float is taken only up to 2^53: beyond it a double no longer holds every
// integer, so "1e17" may not be the integer the user wrote.
inline std::optional<int64_t> whole_number(const nlohmann::json& v) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  if (!v.is_number_float()) return std::nullopt;
  const double d = v.get<double>();
  if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 0x1p53) return std::nullopt;
  return static_cast<int64_t>(d);
}

}  // namespace iofab
