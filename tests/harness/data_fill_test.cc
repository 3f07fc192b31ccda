// BlockFiller: the data iofab writes must defeat dedup and compression, and
// be reproducible from the seed (restore verification regenerates it).
#include "harness/engines/data_fill.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace iofab {
namespace {

using Bytes = std::vector<unsigned char>;

Bytes filled(uint64_t seed, size_t len) {
  Bytes b(len);
  BlockFiller(seed).fill(b.data(), len);
  return b;
}

std::string_view sector(const Bytes& b, size_t i) {
  return {reinterpret_cast<const char*>(b.data()) + i * BlockFiller::kSector, BlockFiller::kSector};
}

TEST(BlockFiller, SameSeedSameStream) {
  BlockFiller a(42), b(42);
  for (size_t len : {size_t{4096}, size_t{1000}, size_t{65536}}) {
    Bytes x(len), y(len);
    a.fill(x.data(), len);
    b.fill(y.data(), len);
    EXPECT_EQ(x, y) << len;
  }
}

TEST(BlockFiller, DifferentSeedsDiffer) {
  const Bytes a = filled(1, 65536), b = filled(2, 65536);
  size_t equal_words = 0;
  for (size_t i = 0; i < a.size(); i += 8) equal_words += std::memcmp(&a[i], &b[i], 8) == 0;
  EXPECT_EQ(equal_words, 0u);
}

TEST(BlockFiller, SuccessiveFillsContinueTheStream) {
  BlockFiller f(9);
  Bytes x(8192), y(8192);
  f.fill(x.data(), x.size());
  f.fill(y.data(), y.size());
  EXPECT_NE(x, y);
}

TEST(BlockFiller, FillNeverRepeatsAWordOrASector) {
  const Bytes b = filled(3, 1 << 20);
  std::unordered_set<uint64_t> words;
  for (size_t i = 0; i < b.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, &b[i], 8);
    EXPECT_TRUE(words.insert(w).second) << "word repeats at " << i;
  }
  std::unordered_set<std::string_view> sectors;
  for (size_t i = 0; i < b.size() / BlockFiller::kSector; ++i) {
    EXPECT_TRUE(sectors.insert(sector(b, i)).second);
  }
}

TEST(BlockFiller, FillLooksIncompressible) {
  // A chi-squared test on byte counts (255 degrees of freedom: mean 255,
  // sd ~22.6); 400 is ~6 sd, and the seed is fixed, so this cannot flake.
  const Bytes b = filled(11, 1 << 20);
  std::array<double, 256> counts{};
  for (unsigned char c : b) counts[c] += 1;
  const double expect = static_cast<double>(b.size()) / 256;
  double chi2 = 0;
  for (double n : counts) chi2 += (n - expect) * (n - expect) / expect;
  EXPECT_LT(chi2, 400.0);
  // And no bit stuck: every bit position is set about half the time.
  for (int bit = 0; bit < 64; ++bit) {
    size_t ones = 0;
    for (size_t i = 0; i < b.size(); i += 8) {
      uint64_t w;
      std::memcpy(&w, &b[i], 8);
      ones += (w >> bit) & 1;
    }
    const double frac = static_cast<double>(ones) / static_cast<double>(b.size() / 8);
    EXPECT_NEAR(frac, 0.5, 0.01) << "bit " << bit;
  }
}

TEST(BlockFiller, FillHandlesOddLengthsAndUnalignedBuffersWithoutOverrun) {
  for (size_t len : {size_t{0}, size_t{1}, size_t{7}, size_t{63}, size_t{64}, size_t{65}, size_t{1001}}) {
    for (size_t shift : {size_t{0}, size_t{1}, size_t{3}}) {
      Bytes b(len + shift + 16, 0xab);
      BlockFiller(5).fill(b.data() + shift, len);
      for (size_t i = 0; i < shift; ++i) EXPECT_EQ(b[i], 0xab) << "before, len " << len;
      for (size_t i = shift + len; i < b.size(); ++i) EXPECT_EQ(b[i], 0xab) << "after, len " << len;
      Bytes ref(len);
      BlockFiller(5).fill(ref.data(), len);
      EXPECT_TRUE(std::equal(ref.begin(), ref.end(), b.begin() + static_cast<ptrdiff_t>(shift)))
          << "alignment changed the data";
    }
  }
}

TEST(BlockFiller, NoTwoSectorsEqualAcrossAThousandStampedBlocks) {
  // One buffer filled once, stamped per block: how workers write.
  constexpr size_t kBlock = 4096;
  BlockFiller filler(77);
  Bytes pattern(kBlock);
  filler.fill(pattern.data(), kBlock);
  std::vector<Bytes> blocks;
  blocks.reserve(1000);
  for (uint64_t id = 0; id < 1000; ++id) {
    blocks.push_back(pattern);
    filler.stamp(blocks.back().data(), kBlock, id);
  }
  std::unordered_set<std::string_view> sectors;
  std::unordered_set<std::string_view> stamps;
  for (const Bytes& b : blocks) {
    for (size_t s = 0; s < kBlock / BlockFiller::kSector; ++s) {
      EXPECT_TRUE(sectors.insert(sector(b, s)).second);
      EXPECT_TRUE(stamps.insert(sector(b, s).substr(0, 16)).second);
    }
  }
  EXPECT_EQ(sectors.size(), 8000u);
}

TEST(BlockFiller, StampTouchesOnlySixteenBytesPerSectorAndIsDeterministic) {
  constexpr size_t kLen = 2048;
  const Bytes pattern = filled(1, kLen);
  Bytes a = pattern, b = pattern;
  BlockFiller(8).stamp(a.data(), kLen, 12345);
  BlockFiller(8).stamp(b.data(), kLen, 12345);
  EXPECT_EQ(a, b);
  for (size_t i = 0; i < kLen; ++i) {
    if (i % BlockFiller::kSector >= 16) {
      ASSERT_EQ(a[i], pattern[i]) << i;
    }
  }
  EXPECT_NE(a, pattern);
  Bytes c = pattern;
  BlockFiller(9).stamp(c.data(), kLen, 12345);  // another seed stamps differently
  for (size_t s = 0; s < kLen / BlockFiller::kSector; ++s) EXPECT_NE(sector(a, s), sector(c, s));
}

TEST(BlockFiller, StampHandlesPartialSectorsWithoutOverrun) {
  for (size_t len : {size_t{5}, size_t{16}, size_t{600}, size_t{1030}}) {
    Bytes b(len + 32, 0);
    BlockFiller(2).stamp(b.data(), len, 1);
    for (size_t i = len; i < b.size(); ++i) EXPECT_EQ(b[i], 0) << "len " << len << " wrote at " << i;
    // The last, partial sector still gets (the start of) a stamp.
    const size_t last = (len - 1) / BlockFiller::kSector * BlockFiller::kSector;
    EXPECT_NE(b[last] | b[last + 1] | b[last + 2] | b[last + 3], 0) << "len " << len;
  }
}

TEST(BlockFiller, BytesAreExactlyAsBefore) {
  // Golden hashes of the default data, taken before the reducible data came (ReducibleFiller): the data a
  // suite without compressibility or dedup writes must not change, bit for bit.
  Bytes b(1 << 20);
  BlockFiller f(42);
  f.fill(b.data(), b.size());
  EXPECT_EQ(XXH3_64bits(b.data(), b.size()), 0x079f2723720a5125ULL);
  f.fill(b.data(), 1001);  // a partial last step, continuing the stream
  EXPECT_EQ(XXH3_64bits(b.data(), b.size()), 0xff8476e19e944dbfULL);
  f.stamp(b.data(), b.size(), 12345);
  EXPECT_EQ(XXH3_64bits(b.data(), b.size()), 0xa582ef405355a5f6ULL);
}

}  // namespace
}  // namespace iofab
