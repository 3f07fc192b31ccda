#include "workloads/checkpoint/tensor_content.h"

#include <algorithm>
#include <cstring>

#include "harness/core/mix.h"

namespace iofab {
namespace {

constexpr uint64_t kChunk = kTensorChunk;

// fmix64 maps 0 to 0: the offset keeps a zero seed, step or chunk from giving a zero mix.
uint64_t mix(uint64_t x) { return fmix64(x + 0x9e3779b97f4a7c15ULL); }

// Reducible content: the bytes at position p = tensor offset + phase (mod 4 KiB, the file's alignment)
// are byte p % 4096 of block p / 4096 of the tensor's stream.
void fill_reducible(uint64_t seed, uint64_t tensor, uint64_t offset, unsigned char* buf, size_t len,
                    const Reducibility& reduce, uint64_t file_phase) {
  const ReducibleFiller filler(mix(seed ^ 0x243f6a8885a308d3ULL), reduce);
  unsigned char whole[kChunk];
  offset += file_phase % kChunk;  // positions in the file's alignment; buf[0] stays at the first
  for (uint64_t at = offset; at < offset + len;) {
    const uint64_t chunk = at / kChunk;
    const uint64_t chunk_end = std::min<uint64_t>(offset + len, (chunk + 1) * kChunk);
    if (at == chunk * kChunk && chunk_end == (chunk + 1) * kChunk) {
      filler.fill(buf + (at - offset), kChunk, tensor, chunk);
    } else {
      filler.fill(whole, kChunk, tensor, chunk);
      std::memcpy(buf + (at - offset), whole + (at - chunk * kChunk), chunk_end - at);
    }
    at = chunk_end;
  }
}

}  // namespace

void fill_tensor_bytes(uint64_t seed, uint64_t step, uint64_t key, uint64_t offset, unsigned char* buf,
                       size_t len, const Reducibility& reduce, uint64_t file_phase) {
  const uint64_t tensor = mix(mix(seed ^ mix(step)) ^ key);
  if (reduce.any()) {
    fill_reducible(seed, tensor, offset, buf, len, reduce, file_phase);
    return;
  }
  DataStream(tensor).fill(buf, len, offset);
}

bool check_tensor_bytes(uint64_t seed, uint64_t step, uint64_t key, uint64_t offset, const unsigned char* buf,
                        size_t len, uint64_t* first_bad, const Reducibility& reduce, uint64_t file_phase) {
  constexpr size_t kPiece = 64 * 1024;
  unsigned char expect[kPiece];
  for (size_t done = 0; done < len;) {
    const size_t n = std::min(kPiece, len - done);
    fill_tensor_bytes(seed, step, key, offset + done, expect, n, reduce, file_phase);
    if (std::memcmp(expect, buf + done, n) != 0) {
      size_t i = 0;
      while (expect[i] == buf[done + i]) ++i;
      *first_bad = offset + done + i;
      return false;
    }
    done += n;
  }
  return true;
}

}  // namespace iofab
