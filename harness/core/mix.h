// Bit mixing shared by everything that derives data from a seed: the fill
// patterns, the dataset's sample sizes and stamps, the sampler's shuffles.
// Their outputs are part of what a dataset or a data file holds, so this
// function must never change: tests check the patterns bit for bit.
#pragma once

#include <cstdint>

namespace iofab {

// 2^64 / the golden ratio, odd: SplitMix64's increment, and the step that spreads consecutive keys (sample
// numbers, epochs) before fmix64. Part of every derived byte like fmix64: never to change.
inline constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

// The 128-bit product that maps a 64-bit hash onto [0, n) by multiply and shift (Lemire), without a modulo.
__extension__ typedef unsigned __int128 Uint128;

// murmur3's 64-bit finaliser: a bijection on 64 bits with full avalanche, so
// distinct inputs give distinct, well-spread outputs.
inline constexpr uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

// A worker's data seed: the suite's seed, the rank and the worker (its index on the rank) made one number,
// so no two workers of a run write the same bytes. Ingest's files and the checkpoint's shards (plus the
// shard's index) are filled from it; like fmix64 it must never change (+ 17 included: both phases always
// added it, so files written before it was named hold the same bytes).
inline constexpr uint64_t worker_data_seed(uint64_t seed, uint64_t rank, uint64_t worker) {
  return seed * 1000003 + rank * 4099 + worker + 17;
}

}  // namespace iofab
