// The sampler of a training job's data loader, as PyTorch's
// DistributedSampler does it: every epoch draws a new permutation of the
// whole dataset from (seed, epoch), so the same seed repeats the same orders
// and no two epochs share one; rank r of n takes every n-th sample of it,
// starting at r, so the ranks' shares are disjoint and together cover the
// dataset exactly once (no padding with repeated samples, unlike
// DistributedSampler's default: every sample is read exactly once per
// epoch). A share is cut into batches in order; the last batch may be
// short unless drop_last drops it.
//
// Pure logic, no I/O; thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace iofab {

// A permutation of 0..num_samples-1 for this epoch (Fisher-Yates over a
// seeded splitmix64 stream with unbiased bounded draws, so the order is the
// same on every machine and compiler). num_samples must fit in 32 bits.
std::vector<uint32_t> epoch_permutation(uint64_t num_samples, uint64_t seed, uint64_t epoch);

// Rank `rank` of `ranks`: positions rank, rank + ranks, rank + 2 ranks, ... of perm.
std::vector<uint32_t> rank_share(std::span<const uint32_t> perm, int rank, int ranks);

// One rank's samples for one epoch, in the order they are read, and their
// batches. Without `consume`, samples are consumed in read order: batch b is
// samples[b * batch_size, min((b + 1) * batch_size, size)). A streaming
// reader's shuffle buffer consumes them in another order: consume[i] is
// where the i-th sample read falls in the consumption order, and a batch
// may need samples read up to `lookahead` positions past its own end.
struct BatchPlan {
  std::vector<uint32_t> samples;
  uint64_t batch_size = 1;
  std::vector<uint32_t> consume;  // empty: consumed in read order
  uint64_t lookahead = 0;

  uint64_t consumed_at(uint64_t pos) const { return consume.empty() ? pos : consume[pos]; }

  uint64_t batches() const { return (samples.size() + batch_size - 1) / batch_size; }
  uint64_t batch_begin(uint64_t b) const { return b * batch_size; }
  uint64_t batch_end(uint64_t b) const {
    const uint64_t e = (b + 1) * batch_size;
    return e < samples.size() ? e : samples.size();
  }
  uint64_t batch_len(uint64_t b) const { return batch_end(b) - batch_begin(b); }
};

// The plan of rank `rank` for `epoch`. drop_last drops a final short batch
// (those samples are then not read in that epoch).
BatchPlan plan_epoch(uint64_t num_samples, uint64_t seed, uint64_t epoch, int rank, int ranks,
                     uint64_t batch_size, bool drop_last);

// A well-mixed 64-bit fingerprint of a sample id. Sums of fingerprints
// (mod 2^64) over the samples read, compared with the sum over the samples
// meant to be read, tell "each exactly once" apart from duplicates and
// omissions that a count alone would miss.
uint64_t sample_fingerprint(uint64_t sample);
// Sum of sample_fingerprint(i) for i in [0, num_samples).
uint64_t fingerprint_sum(uint64_t num_samples);

}  // namespace iofab
