#include "harness/engines/counter_blocks.h"

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define IOFAB_AESNI 1
#endif

namespace iofab {
namespace {

constexpr int kRounds = 4;

// The whitening key, then one round key per round: hex digits of pi (nothing up the sleeve), as
// (low 64 bits, high 64 bits).
constexpr uint64_t kRoundKeys[kRounds + 1][2] = {{0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL},
                                                 {0xa4093822299f31d0ULL, 0x082efa98ec4e6c89ULL},
                                                 {0x452821e638d01377ULL, 0xbe5466cf34e90c6cULL},
                                                 {0xc0ac29b7c97c50ddULL, 0x3f84d5b5b5470917ULL},
                                                 {0x9216d5d98979fb1bULL, 0xd1310ba698dfb5acULL}};

// AES's S-box (FIPS-197, figure 7).
constexpr unsigned char kSbox[256] = {
    0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
    0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
    0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
    0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
    0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
    0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
    0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
    0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
    0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
    0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
    0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
    0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
    0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
    0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
    0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
    0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16};

constexpr unsigned char xtime(unsigned char b) {
  return static_cast<unsigned char>((b << 1) ^ ((b >> 7) * 0x1b));
}

// One round's SubBytes and MixColumns for an input byte in row r, as the little-endian word of the four
// output rows it adds to its column (the classic "T-tables"): row r's byte x contributes
// MixColumns' column r times S(x): 2 S(x) in row r, 3 S(x) in row r - 1, S(x) in the other two.
struct RoundTables {
  uint32_t t[4][256];
};
constexpr RoundTables make_tables() {
  RoundTables tables{};
  for (unsigned x = 0; x < 256; ++x) {
    const unsigned char sx = kSbox[x];
    const unsigned char two = xtime(sx);
    const auto three = static_cast<unsigned char>(two ^ sx);
    // Row 0: (2, 1, 1, 3) in output rows 0..3; row r: the same rotated by r rows.
    const uint32_t t0 = uint32_t{two} | uint32_t{sx} << 8 | uint32_t{sx} << 16 | uint32_t{three} << 24;
    for (int r = 0; r < 4; ++r) tables.t[r][x] = r == 0 ? t0 : (t0 << (8 * r)) | (t0 >> (32 - 8 * r));
  }
  return tables;
}
constexpr RoundTables kTables = make_tables();

void put32(unsigned char* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<unsigned char>(v >> (8 * i));
}

// The block as four little-endian column words: byte r of word c is row r of column c (FIPS-197's
// input order, and the register's bytes).
struct Columns {
  uint32_t w[4];
};
Columns columns_of(uint64_t lo, uint64_t hi) {
  return {{static_cast<uint32_t>(lo), static_cast<uint32_t>(lo >> 32), static_cast<uint32_t>(hi),
           static_cast<uint32_t>(hi >> 32)}};
}

// One round as AESENC computes it: ShiftRows, SubBytes, MixColumns, then the round key. ShiftRows brings
// row r of column c + r to column c.
Columns round_portable(const Columns& s, const Columns& key) {
  Columns out;
  for (int c = 0; c < 4; ++c) {
    out.w[c] = kTables.t[0][s.w[c] & 0xff] ^ kTables.t[1][(s.w[(c + 1) % 4] >> 8) & 0xff] ^
               kTables.t[2][(s.w[(c + 2) % 4] >> 16) & 0xff] ^ kTables.t[3][s.w[(c + 3) % 4] >> 24] ^
               key.w[c];
  }
  return out;
}

#ifdef IOFAB_AESNI
// Eight blocks at a time: AESENC's latency is several of its issue slots, so independent blocks fill the
// pipeline. (GCC needs the unroll pragmas to keep the eight in registers.)
__attribute__((target("aes,sse2"))) void counter_blocks_aesni(uint64_t key, uint64_t first, size_t n,
                                                              unsigned char* out) {
  __m128i rk[kRounds + 1];
#pragma GCC unroll 8
  for (int r = 0; r <= kRounds; ++r) {
    rk[r] =
        _mm_set_epi64x(static_cast<long long>(kRoundKeys[r][1]), static_cast<long long>(kRoundKeys[r][0]));
  }
  __m128i ctr = _mm_set_epi64x(static_cast<long long>(key), static_cast<long long>(first));
  const __m128i one = _mm_set_epi64x(0, 1);
  constexpr size_t kWays = 8;
  size_t i = 0;
  for (; i + kWays <= n; i += kWays) {
    __m128i x[kWays];
#pragma GCC unroll 8
    for (size_t j = 0; j < kWays; ++j) {
      x[j] = _mm_xor_si128(ctr, rk[0]);
      ctr = _mm_add_epi64(ctr, one);
    }
#pragma GCC unroll 8
    for (int r = 1; r <= kRounds; ++r) {
#pragma GCC unroll 8
      for (size_t j = 0; j < kWays; ++j) x[j] = _mm_aesenc_si128(x[j], rk[r]);
    }
#pragma GCC unroll 8
    for (size_t j = 0; j < kWays; ++j) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + kCounterBlock * (i + j)), x[j]);
    }
  }
  for (; i < n; ++i) {
    __m128i x = _mm_xor_si128(ctr, rk[0]);
    ctr = _mm_add_epi64(ctr, one);
#pragma GCC unroll 8
    for (int r = 1; r <= kRounds; ++r) x = _mm_aesenc_si128(x, rk[r]);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + kCounterBlock * i), x);
  }
}

bool cpu_has_aes() {
  static const bool has = __builtin_cpu_supports("aes");
  return has;
}
#endif

}  // namespace

void counter_blocks_portable(uint64_t key, uint64_t first, size_t n, unsigned char* out) {
  Columns keys[kRounds + 1];
  for (int r = 0; r <= kRounds; ++r) keys[r] = columns_of(kRoundKeys[r][0], kRoundKeys[r][1]);
  for (size_t i = 0; i < n; ++i) {
    Columns s = columns_of((first + i) ^ kRoundKeys[0][0], key ^ kRoundKeys[0][1]);
    for (int r = 1; r <= kRounds; ++r) s = round_portable(s, keys[r]);
    for (int c = 0; c < 4; ++c) put32(out + kCounterBlock * i + 4 * c, s.w[c]);
  }
}

bool counter_blocks_in_hardware() {
#ifdef IOFAB_AESNI
  return cpu_has_aes();
#else
  return false;
#endif
}

void counter_blocks(uint64_t key, uint64_t first, size_t n, unsigned char* out) {
#ifdef IOFAB_AESNI
  if (cpu_has_aes()) {
    counter_blocks_aesni(key, first, n, out);
    return;
  }
#endif
  counter_blocks_portable(key, first, n, out);
}

}  // namespace iofab
