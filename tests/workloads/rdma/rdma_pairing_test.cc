// Who talks to whom in each pattern, and who idles.
#include <gtest/gtest.h>

#include "workloads/rdma/pairing.h"

namespace iofab {
namespace {

TEST(RdmaPairing, PairsEvenWithOddNeighbour) {
  const auto links = rdma_links(RdmaPattern::kPairs, 6);
  ASSERT_EQ(links.size(), 3u);
  EXPECT_EQ(links[0], (RdmaLink{0, 1}));
  EXPECT_EQ(links[2], (RdmaLink{4, 5}));
  EXPECT_TRUE(idle_rank_notes(RdmaPattern::kPairs, 6).empty());
  const RdmaRole r4 = rdma_role(links, 4);
  ASSERT_TRUE(r4.initiates);
  EXPECT_EQ(r4.initiates->target, 5);
  EXPECT_TRUE(r4.serves.empty());
  const RdmaRole r5 = rdma_role(links, 5);
  EXPECT_FALSE(r5.initiates);
  ASSERT_EQ(r5.serves.size(), 1u);
  EXPECT_EQ(r5.serves[0].initiator, 4);
}

TEST(RdmaPairing, OddRankOutIdlesAndSaysSo) {
  const auto links = rdma_links(RdmaPattern::kPairs, 5);
  EXPECT_EQ(links.size(), 2u);
  EXPECT_TRUE(rdma_role(links, 4).idle());
  EXPECT_FALSE(rdma_role(links, 3).idle());
  const auto notes = idle_rank_notes(RdmaPattern::kPairs, 5);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "rank 4 has no partner in pattern pairs (5 ranks): it idles");
}

TEST(RdmaPairing, AllToOneMakesRankZeroServeEveryone) {
  const auto links = rdma_links(RdmaPattern::kAllToOne, 4);
  ASSERT_EQ(links.size(), 3u);
  const RdmaRole r0 = rdma_role(links, 0);
  EXPECT_FALSE(r0.initiates);
  ASSERT_EQ(r0.serves.size(), 3u);
  EXPECT_EQ(r0.serves[2].initiator, 3);
  for (int r = 1; r < 4; ++r) {
    const RdmaRole role = rdma_role(links, r);
    ASSERT_TRUE(role.initiates);
    EXPECT_EQ(role.initiates->target, 0);
  }
  EXPECT_TRUE(idle_rank_notes(RdmaPattern::kAllToOne, 4).empty());
}

TEST(RdmaPairing, OneRankHasNoLink) {
  EXPECT_TRUE(rdma_links(RdmaPattern::kPairs, 1).empty());
  EXPECT_TRUE(rdma_links(RdmaPattern::kAllToOne, 1).empty());
}

TEST(RdmaPairing, TestNamesRoundTrip) {
  for (RdmaTest t : {RdmaTest::kWrite, RdmaTest::kRead, RdmaTest::kSend}) {
    EXPECT_EQ(parse_rdma_test(rdma_test_name(t)), t);
  }
  EXPECT_EQ(parse_rdma_test("atomic"), std::nullopt);
}

TEST(RdmaPairing, SpecDerivesSignalingAndSlots) {
  RdmaSpec s;
  s.tx_depth = 128;
  EXPECT_EQ(s.cq_mod(), 32u);
  s.tx_depth = 2;
  EXPECT_EQ(s.cq_mod(), 1u);
  s.max_bytes = 65;
  EXPECT_EQ(s.slot_bytes(), 128u);
}

}  // namespace
}  // namespace iofab
