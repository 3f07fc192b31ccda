#include "harness/engines/data_fill.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "harness/core/mix.h"
#include "harness/engines/counter_blocks.h"

namespace iofab {

namespace {

// What a compressor's sequence costs per 512-byte sector of random bytes then zeros (ReducibleFiller).
constexpr long kCompressorSectorBytes = 4;

}  // namespace

uint64_t data_key(uint64_t seed, uint64_t a, uint64_t b, uint64_t c) {
  // A chain of bijections with a fresh constant at each step: (seed, a, b, c) -> key spreads every input
  // over the whole key, so neighbouring ranks, files and steps get unrelated streams.
  uint64_t k = fmix64(seed ^ 0x5851f42d4c957f2dULL);
  k = fmix64(k ^ (a + kGolden));
  k = fmix64(k ^ (b + 0xbf58476d1ce4e5b9ULL));
  return fmix64(k ^ (c + 0x94d049bb133111ebULL));
}

void DataStream::fill(void* buf, size_t len, uint64_t offset) const {
  auto* out = static_cast<unsigned char*>(buf);
  uint64_t block = offset / kCounterBlock;
  // A start inside a block: its tail.
  if (const size_t skip = offset % kCounterBlock; skip != 0 && len > 0) {
    unsigned char one[kCounterBlock];
    counter_blocks(key_, block++, 1, one);
    const size_t n = std::min(len, kCounterBlock - skip);
    std::memcpy(out, one + skip, n);
    out += n;
    len -= n;
  }
  const size_t whole = len / kCounterBlock;
  counter_blocks(key_, block, whole, out);
  out += whole * kCounterBlock;
  len -= whole * kCounterBlock;
  // An end inside a block: its head.
  if (len > 0) {
    unsigned char one[kCounterBlock];
    counter_blocks(key_, block + whole, 1, one);
    std::memcpy(out, one, len);
  }
}

ReducibleFiller::ReducibleFiller(uint64_t seed, Reducibility r)
    : key_(fmix64(seed ^ 0x3c6ef372fe94f82bULL)),
      random_per_sector_(kDataSector),
      dup_step_(
          std::min<uint64_t>(static_cast<uint64_t>(std::llround(r.dedup * 4294967296.0)), 0xffffffffULL)) {
  if (r.compressibility > 0) {
    // A compressor spends a few bytes per sector on the sequence (the random bytes as literals, the zeros
    // as a match): zstd about 1.7, lz4 about 5.9 (tests/harness/engines/data_reducibility_test.cc). Four bytes
    // fewer random ones put both within 5% of the request up to compressibility 0.8.
    const long want = std::lround(kDataSector * (1 - r.compressibility)) - kCompressorSectorBytes;
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
  const DataStream data(data_key(key_, stream, source_of(stream, index)));
  auto* out = static_cast<unsigned char*>(buf);
  if (random_per_sector_ >= kDataSector) {
    data.fill(out, len, 0);
    return;
  }
  // Each sector: the stream's bytes at the sector's offset, then zeros.
  for (size_t off = 0; off < len; off += kDataSector) {
    const size_t n = std::min(kDataSector, len - off);
    const size_t r = std::min(random_per_sector_, n);
    data.fill(out + off, r, off);
    std::memset(out + off + r, 0, n - r);
  }
}

}  // namespace iofab
