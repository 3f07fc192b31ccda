// The sampler: a fresh permutation every epoch, the same one for the same
// seed, disjoint rank shares that cover the dataset once, batches in order.
#include "workloads/train_read/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

namespace iofab {
namespace {

bool is_permutation_of_n(std::vector<uint32_t> v, uint64_t n) {
  if (v.size() != n) return false;
  std::sort(v.begin(), v.end());
  for (uint64_t i = 0; i < n; ++i) {
    if (v[i] != i) return false;
  }
  return true;
}

TEST(Sampler, EveryEpochIsAPermutation) {
  for (uint64_t n : {1ull, 2ull, 7ull, 1000ull}) {
    for (uint64_t e = 0; e < 3; ++e) {
      EXPECT_TRUE(is_permutation_of_n(epoch_permutation(n, 5, e), n)) << n << " " << e;
    }
  }
  EXPECT_TRUE(epoch_permutation(0, 1, 0).empty());
}

TEST(Sampler, PermutationsDifferBetweenEpochsAndRepeatForTheSameSeed) {
  const auto e0 = epoch_permutation(1000, 42, 0);
  const auto e1 = epoch_permutation(1000, 42, 1);
  EXPECT_NE(e0, e1);
  EXPECT_EQ(e0, epoch_permutation(1000, 42, 0));
  EXPECT_EQ(e1, epoch_permutation(1000, 42, 1));
  EXPECT_NE(e0, epoch_permutation(1000, 43, 0));
  // Seed s, epoch e+1 must not be seed s+1, epoch e.
  EXPECT_NE(epoch_permutation(1000, 42, 1), epoch_permutation(1000, 43, 0));
  // Really shuffled: few samples stay where the identity would put them.
  size_t fixed = 0;
  for (uint32_t i = 0; i < e0.size(); ++i) fixed += e0[i] == i;
  EXPECT_LT(fixed, 20u);
}

TEST(Sampler, ShuffleIsUnbiased) {
  // Position 0 over many epochs: each of 4 values should come up about a quarter of the time.
  std::vector<int> seen(4, 0);
  for (uint64_t e = 0; e < 4000; ++e) seen[epoch_permutation(4, 9, e)[0]]++;
  for (int c : seen) EXPECT_NEAR(c, 1000, 150);
}

TEST(Sampler, RankSharesAreDisjointAndCoverTheDataset) {
  const auto perm = epoch_permutation(103, 3, 2);
  for (int ranks = 1; ranks <= 5; ++ranks) {
    std::vector<uint32_t> all;
    size_t smallest = SIZE_MAX, largest = 0;
    for (int r = 0; r < ranks; ++r) {
      auto share = rank_share(perm, r, ranks);
      smallest = std::min(smallest, share.size());
      largest = std::max(largest, share.size());
      all.insert(all.end(), share.begin(), share.end());
    }
    EXPECT_TRUE(is_permutation_of_n(all, 103)) << ranks << " ranks";
    EXPECT_LE(largest - smallest, 1u) << "no padding, so shares differ by at most one sample";
  }
  // DistributedSampler's order: rank r takes positions r, r + n, ...
  auto share = rank_share(perm, 1, 4);
  EXPECT_EQ(share[0], perm[1]);
  EXPECT_EQ(share[1], perm[5]);
  EXPECT_TRUE(rank_share(perm, 4, 4).empty());
}

TEST(Sampler, BatchesCutTheShareInOrder) {
  BatchPlan p = plan_epoch(100, 1, 0, 0, 3, 8, false);  // rank 0 of 3: 34 samples
  ASSERT_EQ(p.samples.size(), 34u);
  EXPECT_EQ(p.batches(), 5u);
  EXPECT_EQ(p.batch_len(0), 8u);
  EXPECT_EQ(p.batch_begin(4), 32u);
  EXPECT_EQ(p.batch_len(4), 2u);
  EXPECT_EQ(p.samples, rank_share(epoch_permutation(100, 1, 0), 0, 3));

  BatchPlan d = plan_epoch(100, 1, 0, 0, 3, 8, true);
  EXPECT_EQ(d.samples.size(), 32u);
  EXPECT_EQ(d.batches(), 4u);
  EXPECT_EQ(d.batch_len(3), 8u);
}

TEST(Sampler, FingerprintSumsCatchDuplicatesThatCountsMiss) {
  auto perm = epoch_permutation(500, 8, 0);
  uint64_t sum = 0;
  for (uint32_t s : perm) sum += sample_fingerprint(s);
  EXPECT_EQ(sum, fingerprint_sum(500));
  perm[10] = perm[11];  // one sample twice, one never: same count
  uint64_t bad = 0;
  for (uint32_t s : perm) bad += sample_fingerprint(s);
  EXPECT_NE(bad, fingerprint_sum(500));
  std::set<uint64_t> distinct;
  for (uint64_t i = 0; i < 10000; ++i) distinct.insert(sample_fingerprint(i));
  EXPECT_EQ(distinct.size(), 10000u);
}

}  // namespace
}  // namespace iofab
