// ReducibleFiller: the data a suite asks to be reducible must reduce by what it asks, measured with the
// compressors storage uses (zstd at its default level, lz4) on each block alone, as a filesystem
// compresses a record, and with a dedup count of the blocks' xxh3 hashes.
#include <gtest/gtest.h>
#include <xxhash.h>
#include <zstd.h>

#include <cstring>
#include <unordered_set>
#include <vector>

#include "harness/engines/data_fill.h"
#ifdef IOFAB_TEST_LZ4
#include <lz4.h>
#endif

namespace iofab {
namespace {

using Bytes = std::vector<unsigned char>;

// What compressors and a dedup count make of blocks 0..blocks-1 of one stream.
struct Measured {
  double zstd_fraction = 0;   // compressed / original bytes, each block compressed alone
  double lz4_fraction = 0;    // the same with lz4 (0 without liblz4)
  double dedup_fraction = 0;  // 1 - distinct blocks / blocks
};

Measured measure(Reducibility r, size_t block, size_t blocks) {
  const ReducibleFiller filler(1234, r);
  Bytes buf(block), zbuf(ZSTD_compressBound(block));
  std::unordered_set<uint64_t> hashes;
  size_t zstd_bytes = 0, lz4_bytes = 0;
#ifdef IOFAB_TEST_LZ4
  Bytes lbuf(static_cast<size_t>(LZ4_compressBound(static_cast<int>(block))));
#endif
  for (size_t i = 0; i < blocks; ++i) {
    filler.fill(buf.data(), block, 5, i);
    hashes.insert(XXH3_64bits(buf.data(), block));
    const size_t z = ZSTD_compress(zbuf.data(), zbuf.size(), buf.data(), block, ZSTD_CLEVEL_DEFAULT);
    EXPECT_FALSE(ZSTD_isError(z)) << ZSTD_getErrorName(z);
    zstd_bytes += z;
#ifdef IOFAB_TEST_LZ4
    lz4_bytes += static_cast<size_t>(
        LZ4_compress_default(reinterpret_cast<const char*>(buf.data()), reinterpret_cast<char*>(lbuf.data()),
                             static_cast<int>(block), static_cast<int>(lbuf.size())));
#endif
  }
  const double total = static_cast<double>(block * blocks);
  return {static_cast<double>(zstd_bytes) / total, static_cast<double>(lz4_bytes) / total,
          1 - static_cast<double>(hashes.size()) / static_cast<double>(blocks)};
}

// Within +-5% of the request (relative); a request of 0 within 0.01 absolute.
void expect_near_request(double measured, double requested, const char* what) {
  const double tolerance = requested > 0 ? 0.05 * requested : 0.01;
  EXPECT_NEAR(measured, requested, tolerance) << what;
}

struct Setting {
  double compressibility, dedup;
};

class Reducibility_ : public ::testing::TestWithParam<Setting> {};

TEST_P(Reducibility_, CompressorsAndDedupCountGetTheRequest) {
  const Setting s = GetParam();
  // 128 KiB blocks (ZFS's default record) and 4 KiB ones (a page, the smallest dedup unit of most systems).
  for (size_t block : {size_t{128} << 10, size_t{4} << 10}) {
    SCOPED_TRACE("block " + std::to_string(block));
    const Measured m = measure({s.compressibility, s.dedup}, block, (32u << 20) / block);
    expect_near_request(m.zstd_fraction, 1 - s.compressibility, "zstd: compressed / original");
#ifdef IOFAB_TEST_LZ4
    expect_near_request(m.lz4_fraction, 1 - s.compressibility, "lz4: compressed / original");
#endif
    expect_near_request(m.dedup_fraction, s.dedup, "duplicate blocks / blocks");
  }
}

INSTANTIATE_TEST_SUITE_P(Settings, Reducibility_,
                         ::testing::Values(Setting{0, 0}, Setting{0.3, 0}, Setting{0.5, 0}, Setting{0.8, 0},
                                           Setting{0, 0.3}, Setting{0, 0.5}, Setting{0.5, 0.3},
                                           Setting{0.8, 0.5}),
                         [](const auto& setting) {
                           const Setting& s = setting.param;
                           return "c" + std::to_string(static_cast<int>(s.compressibility * 100 + 0.5)) +
                                  "_d" + std::to_string(static_cast<int>(s.dedup * 100 + 0.5));
                         });

TEST(ReducibleFiller, SameBlockSameBytesAndStreamsDiffer) {
  const ReducibleFiller a(9, {0.5, 0.3}), b(9, {0.5, 0.3});
  Bytes x(8192), y(8192), z(8192);
  for (uint64_t i : {0u, 1u, 17u, 1000u}) {
    a.fill(x.data(), x.size(), 2, i);
    b.fill(y.data(), y.size(), 2, i);
    EXPECT_EQ(x, y) << "block " << i;
  }
  a.fill(x.data(), x.size(), 2, 0);
  a.fill(z.data(), z.size(), 3, 0);  // block 0 of another stream
  EXPECT_NE(x, z);
  ReducibleFiller(10, {0.5, 0.3}).fill(z.data(), z.size(), 2, 0);  // another seed
  EXPECT_NE(x, z);
}

TEST(ReducibleFiller, ADuplicateCarriesAnEarlierUniqueBlockOfItsStream) {
  const ReducibleFiller f(4, {0, 0.5});
  Bytes dup(4096), src(4096);
  size_t dups = 0;
  for (uint64_t i = 0; i < 200; ++i) {
    const uint64_t s = f.source_of(7, i);
    ASSERT_LE(s, i);
    EXPECT_FALSE(f.is_duplicate(7, s));
    EXPECT_EQ(s == i, !f.is_duplicate(7, i));
    if (s == i) continue;
    ++dups;
    f.fill(dup.data(), dup.size(), 7, i);
    f.fill(src.data(), src.size(), 7, s);
    EXPECT_EQ(dup, src) << "block " << i << " repeats block " << s;
  }
  EXPECT_FALSE(f.is_duplicate(7, 0));
  EXPECT_NEAR(static_cast<double>(dups), 100.0, 1.0);  // exactly the fraction asked, not a random draw
}

TEST(ReducibleFiller, EverySectorHoldsRandomBytesThenZeros) {
  const ReducibleFiller f(3, {0.75, 0});
  const size_t random = f.random_per_sector();
  EXPECT_NEAR(static_cast<double>(random), 512 * 0.25, 4);
  Bytes b(4096 + 100, 0xab);
  f.fill(b.data(), 4096 + 37, 1, 1);  // a partial last sector
  std::unordered_set<std::string> heads;
  for (size_t off = 0; off < 4096 + 37; off += 512) {
    const size_t sector = std::min<size_t>(512, 4096 + 37 - off);
    const size_t r = std::min(random, sector);
    for (size_t i = r; i < sector; ++i) ASSERT_EQ(b[off + i], 0) << "sector at " << off << " byte " << i;
    heads.insert(std::string(reinterpret_cast<const char*>(&b[off]), r));
  }
  EXPECT_EQ(heads.size(), 9u);  // no sector's random bytes repeat another's
  for (size_t i = 4096 + 37; i < b.size(); ++i) ASSERT_EQ(b[i], 0xab) << "wrote past the end at " << i;
}

TEST(ReducibleFiller, NothingReducibleIsFreshRandomPerBlock) {
  // dedup alone: no zeros, and unique blocks differ in every 8-byte word.
  const ReducibleFiller f(8, {0, 0.3});
  EXPECT_EQ(f.random_per_sector(), 512u);
  Bytes a(4096), b(4096);
  f.fill(a.data(), a.size(), 0, 0);
  f.fill(b.data(), b.size(), 0, 1);
  size_t equal_words = 0;
  for (size_t i = 0; i < a.size(); i += 8) equal_words += std::memcmp(&a[i], &b[i], 8) == 0;
  EXPECT_EQ(equal_words, 0u);
}

}  // namespace
}  // namespace iofab
