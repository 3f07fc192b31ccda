// 16-bit float conversions used by the mpi backend's sums and by the checks.
#include "harness/comm/half_float.h"

#include <gtest/gtest.h>

#include <cmath>

namespace iofab {
namespace {

TEST(HalfFloat, Float16KnownValues) {
  EXPECT_EQ(float_to_fp16(1.0f), 0x3c00);
  EXPECT_EQ(float_to_fp16(-2.0f), 0xc000);
  EXPECT_EQ(float_to_fp16(0.5f), 0x3800);
  EXPECT_EQ(float_to_fp16(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_fp16(1e6f), 0x7c00);                   // overflow to infinity
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_fp16(0.0f), 0x0000);
  EXPECT_EQ(float_to_fp16(2049.0f), float_to_fp16(2048.0f));  // ties round to even
  EXPECT_EQ(float_to_fp16(2051.0f), float_to_fp16(2052.0f));
  EXPECT_TRUE(std::isnan(fp16_to_float(float_to_fp16(NAN))));
  EXPECT_EQ(fp16_to_float(0x3c00), 1.0f);
  EXPECT_EQ(fp16_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isinf(fp16_to_float(0x7c00)));
}

TEST(HalfFloat, Float16EveryPatternRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = fp16_to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_fp16(f), h) << std::hex << h;
  }
}

TEST(HalfFloat, BFloat16KnownValuesAndRounding) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16(-1.0f), 0xbf80);
  EXPECT_EQ(bf16_to_float(0x4080), 4.0f);
  EXPECT_EQ(bf16_to_float(float_to_bf16(257.0f)), 256.0f);  // 257 is a tie: rounds to even 256
  EXPECT_EQ(bf16_to_float(float_to_bf16(259.0f)), 260.0f);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(NAN))));
  for (int i = -256; i <= 256; ++i) ASSERT_EQ(bf16_to_float(float_to_bf16(static_cast<float>(i))), i);
}

}  // namespace
}  // namespace iofab
