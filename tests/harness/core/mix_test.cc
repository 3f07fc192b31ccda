// fmix64 feeds every data pattern and dataset iofab writes: its values are
// pinned, so a change that would alter stored data fails here first.
#include "harness/core/mix.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace iofab {
namespace {

static_assert(fmix64(0) == 0, "fmix64 is usable at compile time");

TEST(Mix, Fmix64KeepsMurmur3Values) {
  EXPECT_EQ(fmix64(1), 0xb456bcfc34c2cb2cULL);
  EXPECT_EQ(fmix64(2), 0x3abf2a20650683e7ULL);
  EXPECT_EQ(fmix64(0x9e3779b97f4a7c15ULL), 0x9ca066f1a4ab2eeaULL);
  EXPECT_EQ(fmix64(UINT64_MAX), 0x64b5720b4b825f21ULL);
}

}  // namespace
}  // namespace iofab
