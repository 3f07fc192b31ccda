#include "workloads/train_read/sampler.h"

#include <numeric>

#include "harness/core/mix.h"

namespace iofab {

namespace {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += kGolden);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound), bound >= 1: Lemire's multiply-and-reject, so no
  // value is favoured (a plain modulo would be, slightly, for large bounds).
  uint64_t below(uint64_t bound) {
    Uint128 m = static_cast<Uint128>(next()) * bound;
    auto low = static_cast<uint64_t>(m);
    if (low < bound) {
      const uint64_t threshold = (0 - bound) % bound;
      while (low < threshold) {
        m = static_cast<Uint128>(next()) * bound;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

 private:
  uint64_t state_;
};

}  // namespace

std::vector<uint32_t> epoch_permutation(uint64_t num_samples, uint64_t seed, uint64_t epoch) {
  std::vector<uint32_t> perm(num_samples);
  std::iota(perm.begin(), perm.end(), 0u);
  // Seed and epoch both go through a full-avalanche mix, so seed s epoch e+1
  // and seed s+1 epoch e never share a stream.
  SplitMix64 rng(fmix64(seed ^ 0x3c6ef372fe94f82bULL) ^ fmix64(epoch + kGolden));
  for (uint64_t i = num_samples; i > 1; --i) {
    const uint64_t j = rng.below(i);
    std::swap(perm[i - 1], perm[j]);
  }
  return perm;
}

std::vector<uint32_t> rank_share(std::span<const uint32_t> perm, int rank, int ranks) {
  std::vector<uint32_t> out;
  if (ranks <= 0 || rank < 0 || rank >= ranks) return out;
  const auto n = static_cast<uint64_t>(ranks);
  const auto r = static_cast<uint64_t>(rank);
  out.reserve(perm.size() / n + 1);
  for (uint64_t i = r; i < perm.size(); i += n) out.push_back(perm[i]);
  return out;
}

BatchPlan plan_epoch(uint64_t num_samples, uint64_t seed, uint64_t epoch, int rank, int ranks,
                     uint64_t batch_size, bool drop_last) {
  BatchPlan plan;
  plan.batch_size = batch_size == 0 ? 1 : batch_size;
  plan.samples = rank_share(epoch_permutation(num_samples, seed, epoch), rank, ranks);
  if (drop_last) plan.samples.resize(plan.samples.size() - plan.samples.size() % plan.batch_size);
  return plan;
}

uint64_t sample_fingerprint(uint64_t sample) { return fmix64(sample * kGolden + 0x2545f4914f6cdd1dULL); }

uint64_t fingerprint_sum(uint64_t num_samples) {
  uint64_t sum = 0;
  for (uint64_t i = 0; i < num_samples; ++i) sum += sample_fingerprint(i);
  return sum;
}

}  // namespace iofab
