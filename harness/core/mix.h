// Bit mixing shared by everything that derives data from a seed: the fill
// patterns, the dataset's sample sizes and stamps, the sampler's shuffles.
// Their outputs are part of what a dataset or a data file holds, so this
// function must never change: tests check the patterns bit for bit.
#pragma once

#include <cstdint>

namespace iofab {

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

}  // namespace iofab
