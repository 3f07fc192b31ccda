// 16-bit floats as bit patterns: IEEE binary16 (float16) and bfloat16.
// MPI has no such types, so the mpi backend sums them with a user op built
// on these; the collectives checks store and load them too. Conversions to
// 16 bits round to nearest even, as GPUs do.
#pragma once

#include <bit>
#include <cstdint>

namespace iofab {

inline float bf16_to_float(uint16_t h) { return std::bit_cast<float>(static_cast<uint32_t>(h) << 16); }

// Branch-free (a select, not a jump) so loops over arrays vectorise.
inline uint16_t float_to_bf16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  const uint32_t quiet_nan = (x >> 16) | 0x40u;
  return static_cast<uint16_t>((x & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
}

// After F. Giesen's half_to_float: exponent rebias, with subnormals renormalised by a float subtraction.
inline float fp16_to_float(uint16_t h) {
  constexpr uint32_t kShiftedExp = 0x7c00u << 13;
  uint32_t o = (static_cast<uint32_t>(h) & 0x7fffu) << 13;
  const uint32_t exp = kShiftedExp & o;
  o += (127u - 15u) << 23;
  if (exp == kShiftedExp) {
    o += (128u - 16u) << 23;  // Inf or NaN
  } else if (exp == 0) {
    o += 1u << 23;  // zero or subnormal
    o = std::bit_cast<uint32_t>(std::bit_cast<float>(o) - std::bit_cast<float>(113u << 23));
  }
  return std::bit_cast<float>(o | ((static_cast<uint32_t>(h) & 0x8000u) << 16));
}

// After F. Giesen's float_to_half_fast3_rtne.
inline uint16_t float_to_fp16(float f) {
  constexpr uint32_t kInf = 255u << 23;
  constexpr uint32_t kF16Max = (127u + 16u) << 23;
  constexpr uint32_t kDenormMagic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
  uint32_t u = std::bit_cast<uint32_t>(f);
  const uint32_t sign = u & 0x80000000u;
  u ^= sign;
  uint32_t o;
  if (u >= kF16Max) {
    o = u > kInf ? 0x7e00u : 0x7c00u;
  } else if (u < (113u << 23)) {
    // Adding the magic float aligns the 10 mantissa bits at the bottom, rounding to nearest even.
    const float sum = std::bit_cast<float>(u) + std::bit_cast<float>(kDenormMagic);
    o = std::bit_cast<uint32_t>(sum) - kDenormMagic;
  } else {
    const uint32_t mant_odd = (u >> 13) & 1u;
    u += (static_cast<uint32_t>(15 - 127) << 23) + 0xfffu;
    u += mant_odd;
    o = u >> 13;
  }
  return static_cast<uint16_t>(o | (sign >> 16));
}

}  // namespace iofab
