// The block function of iofab's data generator (data_fill.h): block j of the stream keyed by k is
// E(k, j), four AES rounds over the 128-bit counter block (j in the low 64 bits, k in the high), under
// fixed round keys. AES rounds are a permutation of the block, so distinct (k, j) give distinct 16-byte
// blocks: no aligned 16 bytes of one stream repeat in it or in any other stream. Four rounds spread every
// input bit over the whole block (two would already reach every byte), which is all a compressor or a
// dedup engine could exploit; this is no cipher and keeps no secret.
//
// The CPU's AES instructions make a block where it has them (AES-NI: every x86-64 server since 2010);
// elsewhere the same rounds in portable code give the same bytes, only slower.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace iofab {

constexpr size_t kCounterBlock = 16;

// Writes blocks first, first + 1, ..., first + n - 1 of stream key at out (any alignment), 16 bytes each.
void counter_blocks(uint64_t key, uint64_t first, size_t n, unsigned char* out);

// The same through the portable rounds, whatever the CPU has: the reference the hardware path is tested
// against.
void counter_blocks_portable(uint64_t key, uint64_t first, size_t n, unsigned char* out);

// Whether counter_blocks uses the CPU's AES instructions here.
bool counter_blocks_in_hardware();

}  // namespace iofab
