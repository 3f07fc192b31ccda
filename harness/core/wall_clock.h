// The wall clock as reports and manifests write it: an RFC 3339 UTC time to the second, and Unix
// nanoseconds (which order events across hosts as far as their clocks agree).
#pragma once

#include <cstdint>
#include <string>

namespace iofab {

std::string rfc3339_utc_now();  // "2026-11-25T08:31:00Z"
uint64_t unix_ns_now();

}  // namespace iofab
