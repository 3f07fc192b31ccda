// The default data (DataStream): every byte a function of (key, offset), so a block made alone at any
// offset equals the same bytes of the whole stream; nothing repeats for dedup or a compressor to find;
// the hardware and portable block functions agree bit for bit; and the bytes never change silently
// (prepared datasets and model files are verified against them).
#include "harness/engines/data_fill.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "harness/engines/counter_blocks.h"

namespace iofab {
namespace {

using Bytes = std::vector<unsigned char>;

Bytes stream(uint64_t key, size_t len, uint64_t offset = 0) {
  Bytes b(len);
  DataStream(key).fill(b.data(), len, offset);
  return b;
}

TEST(DataStream, SameKeySameBytesOtherKeysOtherBytes) {
  EXPECT_EQ(stream(42, 65536), stream(42, 65536));
  const Bytes a = stream(1, 65536), b = stream(2, 65536);
  size_t equal_words = 0;
  for (size_t i = 0; i < a.size(); i += 8) equal_words += std::memcmp(&a[i], &b[i], 8) == 0;
  EXPECT_EQ(equal_words, 0u);
}

TEST(DataStream, ABlockMadeAtAnyOffsetIsThoseBytesOfTheWholeStream) {
  // The whole stream made in one call, then pieces of every alignment and length made alone, into
  // buffers of every alignment: each piece must be exactly its slice, and write nothing outside it.
  const Bytes whole = stream(77, 1 << 16);
  for (uint64_t offset : {0, 1, 15, 16, 17, 511, 512, 4095, 4096, 40000}) {
    for (size_t len : {0, 1, 7, 15, 16, 17, 33, 512, 4096, 4097, 20000}) {
      if (offset + len > whole.size()) continue;
      for (size_t shift : {0, 1, 3}) {
        Bytes b(len + shift + 16, 0xab);
        DataStream(77).fill(b.data() + shift, len, offset);
        for (size_t i = 0; i < shift; ++i) ASSERT_EQ(b[i], 0xab) << "before, offset " << offset;
        for (size_t i = shift + len; i < b.size(); ++i) ASSERT_EQ(b[i], 0xab) << "after, offset " << offset;
        ASSERT_TRUE(std::equal(b.begin() + static_cast<ptrdiff_t>(shift),
                               b.begin() + static_cast<ptrdiff_t>(shift + len),
                               whole.begin() + static_cast<ptrdiff_t>(offset)))
            << "offset " << offset << " len " << len << " shift " << shift;
      }
    }
  }
  // Far into a stream (a file's last block), too.
  const uint64_t far = (1ULL << 40) + 48;
  const Bytes tail = stream(77, 4096, far);
  EXPECT_EQ(stream(77, 100, far + 1000), Bytes(tail.begin() + 1000, tail.begin() + 1100));
}

TEST(DataStream, NoAlignedWordAndNo4KiBBlockAtAny512ByteShiftRepeats) {
  // 8 MiB of one stream and 1 MiB of another: every 8-byte word at an 8-byte offset is distinct, and so
  // is every 4 KiB window starting at a multiple of 512 (the dedup units a filesystem could pick).
  Bytes b = stream(data_key(3, 0, 0), 8 << 20);
  const Bytes other = stream(data_key(3, 0, 1), 1 << 20);
  b.insert(b.end(), other.begin(), other.end());
  std::unordered_set<uint64_t> words;
  for (size_t i = 0; i < b.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, &b[i], 8);
    ASSERT_TRUE(words.insert(w).second) << "word repeats at " << i;
  }
  std::unordered_set<std::string_view> blocks;
  for (size_t i = 0; i + 4096 <= b.size(); i += kDataSector) {
    ASSERT_TRUE(blocks.insert({reinterpret_cast<const char*>(b.data()) + i, 4096}).second) << i;
  }
}

TEST(DataStream, LooksUniformlyRandom) {
  // A chi-squared test on byte counts (255 degrees of freedom: mean 255, sd ~22.6); 400 is ~6 sd, and the
  // key is fixed, so this cannot flake. And no bit stuck: every bit of a word is set about half the time.
  const Bytes b = stream(11, 1 << 20);
  std::array<double, 256> counts{};
  for (unsigned char c : b) counts[c] += 1;
  const double expect = static_cast<double>(b.size()) / 256;
  double chi2 = 0;
  for (double n : counts) chi2 += (n - expect) * (n - expect) / expect;
  EXPECT_LT(chi2, 400.0);
  for (int bit = 0; bit < 64; ++bit) {
    size_t ones = 0;
    for (size_t i = 0; i < b.size(); i += 8) {
      uint64_t w;
      std::memcpy(&w, &b[i], 8);
      ones += (w >> bit) & 1;
    }
    EXPECT_NEAR(static_cast<double>(ones) / static_cast<double>(b.size() / 8), 0.5, 0.01) << "bit " << bit;
  }
}

TEST(DataStream, NeighbouringKeysAndCountersAreUnrelated) {
  // Blocks of keys k and k + 1, and blocks j and j + 1 of one key, differ in about half their bits: a
  // counter that steps does not show through.
  std::array<unsigned char, 32> x{}, y{};
  size_t differ = 0, bits = 0;
  for (uint64_t k = 0; k < 256; ++k) {
    counter_blocks(k, 0, 2, x.data());
    counter_blocks(k + 1, 0, 2, y.data());
    for (size_t i = 0; i < 32; ++i) {
      differ += static_cast<size_t>(__builtin_popcount(x[i] ^ y[i])) +
                static_cast<size_t>(__builtin_popcount(x[i] ^ x[(i + 16) % 32]));
      bits += 16;
    }
  }
  EXPECT_NEAR(static_cast<double>(differ) / static_cast<double>(bits), 0.5, 0.01);
}

TEST(DataStream, HardwareAndPortableRoundsGiveTheSameBytes) {
  if (!counter_blocks_in_hardware()) GTEST_SKIP() << "no AES instructions here: the portable rounds alone";
  for (uint64_t key : {uint64_t{0}, uint64_t{1}, uint64_t{0xdeadbeefcafef00d}}) {
    for (uint64_t first : {uint64_t{0}, uint64_t{5}, ~uint64_t{0} - 3}) {  // the last wraps the counter
      for (size_t n : {1, 7, 8, 9, 100}) {
        Bytes hw(16 * n), sw(16 * n);
        counter_blocks(key, first, n, hw.data());
        counter_blocks_portable(key, first, n, sw.data());
        ASSERT_EQ(hw, sw) << "key " << key << " first " << first << " n " << n;
      }
    }
  }
}

TEST(DataStream, BytesArePinned) {
  // Golden hashes: a prepared dataset or model folder is verified against these bytes, so a change to the
  // generator must be a deliberate one (and then these hashes change with it). Computed by the portable
  // rounds, so the hardware path is pinned too (the test above).
  Bytes b(1 << 20);
  counter_blocks_portable(42, 0, b.size() / 16, b.data());
  EXPECT_EQ(XXH3_64bits(b.data(), b.size()), 0x445bb38868516973ULL);
  EXPECT_EQ(XXH3_64bits(stream(42, 1 << 20).data(), 1 << 20), 0x445bb38868516973ULL);
  EXPECT_EQ(data_key(1, 2, 3, 4), 0x70918c976791ac4cULL);
}

}  // namespace
}  // namespace iofab
