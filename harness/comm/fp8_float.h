// 8-bit floats as bit patterns (OCP FP8, as NVIDIA's __nv_fp8_e4m3 and
// __nv_fp8_e5m2): e4m3 has 4 exponent bits (bias 7), 3 mantissa bits, no
// infinity, largest 448; e5m2 has 5 (bias 15) and 2, IEEE-like. Only NCCL
// moves them (MPI has no 8-bit float type); the collectives checks store and
// load them. Conversions round to nearest even and saturate at the largest
// finite value, as NVIDIA's saturating conversions do.
#pragma once

#include <cmath>
#include <cstdint>

namespace iofab {

namespace fp8_detail {

template <int kExpBits, int kManBits>
struct Format {
  static constexpr int kBias = (1 << (kExpBits - 1)) - 1;
  static constexpr int kMinExp = 1 - kBias;  // of the smallest normal
  // e4m3 keeps its top exponent for numbers (only S.1111.111 is NaN); e5m2 gives it to Inf and NaN.
  static constexpr bool kTopExpIsNumber = kExpBits == 4;
  static constexpr int kMaxExp = (1 << kExpBits) - 1 - kBias - (kTopExpIsNumber ? 0 : 1);
  static constexpr int kMaxMan = kTopExpIsNumber ? (1 << kManBits) - 2 : (1 << kManBits) - 1;
  static double max_value() { return std::ldexp(1.0 + kMaxMan / double(1 << kManBits), kMaxExp); }
};

template <int E, int M>
float decode(uint8_t b) {
  using F = Format<E, M>;
  const int exp = (b >> M) & ((1 << E) - 1);
  const int man = b & ((1 << M) - 1);
  const float sign = (b & 0x80) ? -1.0f : 1.0f;
  if (F::kTopExpIsNumber && exp == (1 << E) - 1 && man == (1 << M) - 1) return NAN;
  if (!F::kTopExpIsNumber && exp == (1 << E) - 1) return man == 0 ? sign * INFINITY : NAN;
  if (exp == 0) return sign * static_cast<float>(std::ldexp(man, F::kMinExp - M));
  return sign * static_cast<float>(std::ldexp(1.0 + man / double(1 << M), exp - F::kBias));
}

template <int E, int M>
uint8_t encode(float f) {
  using F = Format<E, M>;
  if (std::isnan(f)) return F::kTopExpIsNumber ? 0x7f : static_cast<uint8_t>(((1 << E) - 1) << M | 1);
  const uint8_t sign = std::signbit(f) ? 0x80 : 0;
  double a = std::fabs(static_cast<double>(f));
  if (a == 0) return sign;
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1): its leading bit is 2^(e-1)
  const int quantum_exp = (e - 1 < F::kMinExp ? F::kMinExp : e - 1) - M;
  a = std::nearbyint(std::ldexp(a, -quantum_exp)) * std::ldexp(1.0, quantum_exp);  // ties to even
  if (a > F::max_value()) a = F::max_value();
  if (a == 0) return sign;
  std::frexp(a, &e);
  if (e - 1 < F::kMinExp) return sign | static_cast<uint8_t>(std::ldexp(a, M - F::kMinExp));
  const int man = static_cast<int>(std::ldexp(a, M - (e - 1))) - (1 << M);
  return sign | static_cast<uint8_t>((e - 1 + F::kBias) << M | man);
}

}  // namespace fp8_detail

inline float fp8_e4m3_to_float(uint8_t b) { return fp8_detail::decode<4, 3>(b); }
inline uint8_t float_to_fp8_e4m3(float f) { return fp8_detail::encode<4, 3>(f); }
inline float fp8_e5m2_to_float(uint8_t b) { return fp8_detail::decode<5, 2>(b); }
inline uint8_t float_to_fp8_e5m2(float f) { return fp8_detail::encode<5, 2>(f); }

}  // namespace iofab
