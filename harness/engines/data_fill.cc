#include "harness/engines/data_fill.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "harness/core/mix.h"

namespace iofab {

namespace {

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;
// What a compressor's sequence costs per 512-byte sector of random bytes then zeros (ReducibleFiller).
constexpr long kCompressorSectorBytes = 4;

// splitmix64: turns one seed into well-spread generator state, so that
// neighbouring seeds (rank 0, 1, 2, ...) still start far apart.
uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += kGolden);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// kVecs x 2 independent xoshiro256+ lanes in GNU vector types (GCC and Clang): one lane's update is a
// serial chain of xors, so running eight side by side in SSE2 registers (the x86-64 baseline) gives
// ~13 GiB/s where one scalar lane gives ~7. Every loop over lanes is unrolled, so the lanes live in
// registers rather than in a stack array reloaded each step.
class Lanes {
 public:
  static constexpr int kVecs = 4;
  using V2 = uint64_t __attribute__((vector_size(16)));
  static constexpr size_t kStep = sizeof(V2) * kVecs;  // bytes per step

  // The lanes' state, well spread from one 64-bit key by splitmix64.
  explicit Lanes(uint64_t key) {
    uint64_t seeds[4][kVecs * 2];
    for (auto& row : seeds) {
      for (uint64_t& v : row) v = splitmix64(&key);
    }
#pragma GCC unroll 8
    for (int i = 0; i < kVecs; ++i) {
      l0_[i] = V2{seeds[0][2 * i] | 1, seeds[0][2 * i + 1] | 1};  // never the all-zero state
      l1_[i] = V2{seeds[1][2 * i], seeds[1][2 * i + 1]};
      l2_[i] = V2{seeds[2][2 * i], seeds[2][2 * i + 1]};
      l3_[i] = V2{seeds[3][2 * i], seeds[3][2 * i + 1]};
    }
  }

  // Writes the next len bytes of the stream at out (which may be unaligned). A last partial step uses
  // the start of a step's words, and the next put goes on after the whole step.
  void put(unsigned char* out, size_t len) {
    run([&](auto&& step) { put_with(step, out, len); });
  }

  // In every chunk bytes of out[0, len): the next `random` bytes of the stream (as put), then zeros.
  void put_spread(unsigned char* out, size_t len, size_t chunk, size_t random) {
    run([&](auto&& step) {
      for (size_t off = 0; off < len; off += chunk) {
        const size_t n = std::min(chunk, len - off);
        const size_t r = std::min(random, n);
        put_with(step, out + off, r);
        std::memset(out + off + r, 0, n - r);
      }
    });
  }

 private:
  // Runs body(step) on local copies of the lanes, then stores them back: members reached through
  // `this` stay in memory, reloaded every step (half the speed), where locals whose address never
  // escapes live in registers. step(out) writes the next kStep bytes.
  template <class Body>
  inline void run(Body&& body) {
    V2 l0[kVecs], l1[kVecs], l2[kVecs], l3[kVecs];
#pragma GCC unroll 8
    for (int i = 0; i < kVecs; ++i) {
      l0[i] = l0_[i];
      l1[i] = l1_[i];
      l2[i] = l2_[i];
      l3[i] = l3_[i];
    }
    body([&](unsigned char* to) {
#pragma GCC unroll 8
      for (int i = 0; i < kVecs; ++i) {
        const V2 word = l0[i] + l3[i];
        std::memcpy(to + i * sizeof(V2), &word, sizeof word);
        const V2 t = l1[i] << 17;
        l2[i] ^= l0[i];
        l3[i] ^= l1[i];
        l1[i] ^= l2[i];
        l0[i] ^= l3[i];
        l2[i] ^= t;
        l3[i] = (l3[i] << 45) | (l3[i] >> 19);
      }
    });
#pragma GCC unroll 8
    for (int i = 0; i < kVecs; ++i) {
      l0_[i] = l0[i];
      l1_[i] = l1[i];
      l2_[i] = l2[i];
      l3_[i] = l3[i];
    }
  }

  template <class Step>
  static inline void put_with(Step& step, unsigned char* out, size_t len) {
    while (len >= kStep) {
      step(out);
      out += kStep;
      len -= kStep;
    }
    if (len > 0) {
      unsigned char words[kStep];
      step(words);
      std::memcpy(out, words, len);
    }
  }

  V2 l0_[kVecs], l1_[kVecs], l2_[kVecs], l3_[kVecs];
};

}  // namespace

BlockFiller::BlockFiller(uint64_t seed) : seed_(seed) {
  uint64_t sm = seed;
  for (uint64_t& s : s_) s = splitmix64(&sm);
}

void BlockFiller::fill(void* buf, size_t len) {
  // The lanes are derived from s_ on entry and s_ moves on one step per call: the same seed and the same
  // calls give the same bytes, and successive calls continue with fresh data.
  Lanes lanes(s_[0] ^ rotl(s_[1], 17) ^ rotl(s_[2], 31) ^ rotl(s_[3], 47));
  {
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
  }
  lanes.put(static_cast<unsigned char*>(buf), len);
}

void BlockFiller::stamp(void* buf, size_t len, uint64_t block_id) const {
  // (block, sector) -> (a, b) is injective for a fixed seed: a is a bijection
  // of block_id, b a bijection of the sector index for a given a, and the
  // final Feistel-style step (a ^= f(b)) is invertible. So two sectors with
  // distinct (block, sector) can never carry the same 16 bytes, and both words
  // still depend on both inputs.
  const uint64_t key0 = fmix64(seed_ ^ 0x5851f42d4c957f2dULL);
  const uint64_t key1 = fmix64(seed_ + kGolden);
  const uint64_t a0 = fmix64(block_id ^ key0);
  auto* out = static_cast<unsigned char*>(buf);
  uint64_t sector = 0;
  for (size_t off = 0; off < len; off += kSector, ++sector) {
    const uint64_t b = fmix64((sector * kGolden) ^ a0 ^ key1);
    const uint64_t words[2] = {a0 ^ fmix64(b), b};
    const size_t n = len - off < sizeof words ? len - off : sizeof words;
    std::memcpy(out + off, words, n);
  }
}

ReducibleFiller::ReducibleFiller(uint64_t seed, Reducibility r)
    : key_(fmix64(seed ^ 0x3c6ef372fe94f82bULL)),
      random_per_sector_(BlockFiller::kSector),
      dup_step_(
          std::min<uint64_t>(static_cast<uint64_t>(std::llround(r.dedup * 4294967296.0)), 0xffffffffULL)) {
  if (r.compressibility > 0) {
    // A compressor spends a few bytes per sector on the sequence (the random bytes as literals, the zeros
    // as a match): zstd about 1.7, lz4 about 5.9 (tests/harness/data_reducibility_test.cc). Four bytes
    // fewer random ones put both within 5% of the request up to compressibility 0.8.
    const long want = std::lround(BlockFiller::kSector * (1 - r.compressibility)) - kCompressorSectorBytes;
    random_per_sector_ = static_cast<size_t>(std::max(want, 1L));
  }
}

bool ReducibleFiller::is_duplicate(uint64_t stream, uint64_t index) const {
  if (index == 0 || dup_step_ == 0) return false;
  // A block is a duplicate where floor(index x dedup + phase) steps up: exactly the requested fraction of
  // every run of blocks (+-1), at a phase of the stream's own so that streams do not march in step. In
  // 32-bit fixed point, it steps up where the fraction's low 32 bits carry on adding dedup (the low bits
  // are exact under uint64 wrap-around, so any index works).
  const uint64_t phase = fmix64(key_ ^ fmix64(stream + kGolden)) >> 32;
  const uint64_t low = (index * dup_step_ + phase) & 0xffffffffULL;
  return low + dup_step_ > 0xffffffffULL;
}

uint64_t ReducibleFiller::source_of(uint64_t stream, uint64_t index) const {
  // Each step goes to an earlier block, and block 0 is unique: the walk ends.
  const uint64_t stream_key = fmix64(key_ + fmix64(stream ^ 0x6a09e667f3bcc908ULL));
  while (is_duplicate(stream, index)) index = fmix64(stream_key ^ (index * kGolden)) % index;
  return index;
}

void ReducibleFiller::fill(void* buf, size_t len, uint64_t stream, uint64_t index) const {
  const uint64_t source = source_of(stream, index);
  Lanes lanes(fmix64(key_ ^ fmix64(stream * 0xbf58476d1ce4e5b9ULL + source)) ^ fmix64(source + kGolden));
  auto* out = static_cast<unsigned char*>(buf);
  if (random_per_sector_ >= BlockFiller::kSector) {
    lanes.put(out, len);
  } else {
    lanes.put_spread(out, len, BlockFiller::kSector, random_per_sector_);
  }
}

}  // namespace iofab
