// The metadata phase's plan, apart from any storage: the counts each step must reach.
#include <gtest/gtest.h>

#include <set>

#include "workloads/metadata/metadata_plan.h"

namespace iofab::testing {
namespace {

MetadataParams params(uint64_t files, unsigned dirs, unsigned depth, unsigned workers = 1) {
  MetadataParams p;
  p.files_per_rank = files;
  p.dirs_per_level = dirs;
  p.depth = depth;
  p.workers = workers;
  return p;
}

TEST(MetadataPlan, TheTreeHasDirsPerLevelToTheDepthLeavesParentsFirst) {
  const MetadataPlan plan(params(100, 3, 2), 2);
  ASSERT_EQ(plan.levels().size(), 2u);
  EXPECT_EQ(plan.levels()[0], (std::vector<std::string>{"d0", "d1", "d2"}));
  EXPECT_EQ(plan.levels()[1].size(), 9u);
  EXPECT_EQ(plan.levels()[1][4], "d1/d1");
  EXPECT_EQ(plan.leaves(), plan.levels()[1]);
  EXPECT_EQ(plan.folders_made_by(0), 1u + 3 + 9);  // the root, then both levels
  EXPECT_EQ(tree_folder_count(3, 2, 100), 12u);
  EXPECT_EQ(tree_folder_count(10, 7, 1'000'000), 0u);  // 11,111,110 folders: past the limit
}

TEST(MetadataPlan, EveryFileLandsInOneLeafInContiguousBlocksAndTheLeafCountsAddUp) {
  for (uint64_t files : {1ULL, 7ULL, 100ULL, 1001ULL}) {
    const MetadataPlan plan(params(files, 4, 2), 1);
    std::vector<uint64_t> per_leaf(plan.leaves().size(), 0);
    size_t last = 0;
    for (uint64_t i = 0; i < files; ++i) {
      const size_t leaf = plan.leaf_of(i);
      ASSERT_LT(leaf, per_leaf.size());
      EXPECT_GE(leaf, last) << "file " << i << " of " << files << " went back a leaf";
      last = leaf;
      ++per_leaf[leaf];
    }
    uint64_t sum = 0;
    for (size_t k = 0; k < per_leaf.size(); ++k) {
      EXPECT_EQ(per_leaf[k], plan.files_in_leaf(k)) << files << " files, leaf " << k;
      sum += plan.files_in_leaf(k);
    }
    EXPECT_EQ(sum, files);
  }
}

TEST(MetadataPlan, WithoutDepthTheFilesAreInTheTreeRoot) {
  const MetadataPlan plan(params(10, 5, 0), 1);
  EXPECT_EQ(plan.leaves(), std::vector<std::string>{""});
  EXPECT_EQ(plan.files_in_leaf(0), 10u);
  EXPECT_EQ(plan.folders_made_by(0), 1u);
}

TEST(MetadataPlan, StrideMapsRanksOntoOthersInStridedStepsOnlyAndEveryOwnerOnce) {
  MetadataParams p = params(10, 1, 0);
  p.stride = 3;
  const MetadataPlan plan(p, 4);
  std::set<int> owners;
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(plan.owner_for(r, MdStep::kStat), (r + 3) % 4);
    EXPECT_EQ(plan.owner_for(r, MdStep::kCreate), r);  // a rank makes its own files
    EXPECT_EQ(plan.owner_for(r, MdStep::kRename), r);
    owners.insert(plan.owner_for(r, MdStep::kRemove));
  }
  EXPECT_EQ(owners.size(), 4u);  // each rank's files are removed by exactly one rank
}

TEST(MetadataPlan, WorkersShareTheFilesWithoutGapOrOverlap) {
  const MetadataPlan plan(params(10, 1, 0, 3), 1);
  uint64_t next = 0;
  for (unsigned w = 0; w < 3; ++w) {
    const auto [first, last] = plan.share(w);
    EXPECT_EQ(first, next);
    EXPECT_GT(last, first);
    next = last;
  }
  EXPECT_EQ(next, 10u);
}

TEST(MetadataPlan, ASharedFolderIsOneTreeMadeByRankZeroListingEveryRanksFiles) {
  MetadataParams p = params(10, 2, 1);
  p.shared_folder = true;
  const MetadataPlan plan(p, 3);
  EXPECT_EQ(plan.tree_root(0), plan.tree_root(2));
  EXPECT_EQ(plan.folders_made_by(0), 3u);
  EXPECT_EQ(plan.folders_made_by(1), 0u);
  EXPECT_EQ(plan.entries_listed(), 30u);
  p.shared_folder = false;
  const MetadataPlan own(p, 3);
  EXPECT_NE(own.tree_root(0), own.tree_root(2));
  EXPECT_EQ(own.entries_listed(), 10u);
}

TEST(MetadataPlan, AfterAStonewallTheLeafCountsAreThoseOfTheFirstFilesMadeInTheCeilingsLeaves) {
  const MetadataPlan plan(params(100, 4, 1), 2);  // 4 leaves of 25 files at the ceiling
  uint64_t sum = 0;
  for (size_t k = 0; k < plan.leaves().size(); ++k) {
    uint64_t expected = 0;
    for (uint64_t i = 0; i < 30; ++i) expected += plan.leaf_of(i) == k ? 1 : 0;
    EXPECT_EQ(plan.files_in_leaf(k, 30), expected) << "leaf " << k;
    sum += plan.files_in_leaf(k, 30);
  }
  EXPECT_EQ(sum, 30u);
  EXPECT_EQ(plan.files_in_leaf(0, 30), 25u);
  EXPECT_EQ(plan.files_in_leaf(3, 30), 0u);
  EXPECT_EQ(plan.entries_listed(30), 30u);
}

}  // namespace
}  // namespace iofab::testing
