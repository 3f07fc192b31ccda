#include "harness/core/number_text.h"

#include <cstdio>

namespace iofab {

std::string number_text(const char* format, double v) {
  char buf[64];
  // The format is a literal of this project's: the compiler cannot see it here, the callers can.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  const int n = std::snprintf(buf, sizeof buf, format, v);
#pragma GCC diagnostic pop
  return n < 0 ? std::string() : std::string(buf, static_cast<size_t>(n) < sizeof buf ? static_cast<size_t>(n) : sizeof buf - 1);
}

}  // namespace iofab
