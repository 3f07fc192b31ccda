// Checked arithmetic on byte counts. A product or sum of sizes that does not
// fit in 64 bits must be an error its caller names ("file_size x workers x
// ranks exceeds 2^64 bytes"), never a wrapped small number that passes the
// free-space preflight and then writes until ENOSPC.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>

namespace iofab {

inline std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

inline std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) {
  uint64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// The product of every factor; nullopt when it exceeds 2^64 - 1 (a zero factor still makes it 0).
inline std::optional<uint64_t> checked_product(std::initializer_list<uint64_t> factors) {
  uint64_t out = 1;
  for (uint64_t f : factors) {
    if (__builtin_mul_overflow(out, f, &out)) return std::nullopt;
  }
  return out;
}

// Optional-in, optional-out forms, so a chain of sums stays one expression.
inline std::optional<uint64_t> checked_add(std::optional<uint64_t> a, std::optional<uint64_t> b) {
  if (!a || !b) return std::nullopt;
  return checked_add(*a, *b);
}
inline std::optional<uint64_t> checked_mul(std::optional<uint64_t> a, std::optional<uint64_t> b) {
  if (!a || !b) return std::nullopt;
  return checked_mul(*a, *b);
}

}  // namespace iofab
