// Issue 42 item 9: the cache warning comes from the plan itself, the share of stat, open and read
// operations a rank does on files it made (a client cache could answer them), whatever produced it:
// stride 0, one rank, or a stride that is a multiple of the rank count (2 on 2 ranks).
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <nlohmann/json.hpp>

#include "harness/store/posix_store.h"
#include "workloads/phase_harness.h"
#include "test_util.h"
#include "thread_comm.h"
#include "workloads/metadata/metadata_plan.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

MetadataParams strided(unsigned stride, std::vector<MdStep> steps) {
  MetadataParams p;
  p.files_per_rank = 10;
  p.stride = stride;
  p.steps = std::move(steps);
  return p;
}

const std::vector<MdStep> kAll = {MdStep::kCreate, MdStep::kStat, MdStep::kOpen, MdStep::kRead,
                                  MdStep::kRemove};

TEST(MetadataOwnFiles, TheShareOfReadsOnARanksOwnFilesComesFromThePlan) {
  EXPECT_EQ(MetadataPlan(strided(0, kAll), 2).own_files_fraction(), 1.0);
  EXPECT_EQ(MetadataPlan(strided(2, kAll), 2).own_files_fraction(), 1.0);  // each rank onto itself
  EXPECT_EQ(MetadataPlan(strided(6, kAll), 3).own_files_fraction(), 1.0);
  EXPECT_EQ(MetadataPlan(strided(1, kAll), 1).own_files_fraction(), 1.0);  // one rank has no other
  EXPECT_EQ(MetadataPlan(strided(1, kAll), 2).own_files_fraction(), 0.0);
  EXPECT_EQ(MetadataPlan(strided(3, kAll), 2).own_files_fraction(), 0.0);
  // No stat, open or read asked: nothing a cache could answer.
  EXPECT_EQ(MetadataPlan(strided(0, {MdStep::kCreate, MdStep::kRemove}), 2).own_files_fraction(), 0.0);
}

TEST(MetadataOwnFiles, AStrideThatMapsEachRankOntoItselfWarnsAsStrideZeroDoes) {
  TempDir dir("/dev/shm");
  TargetInfo target;
  ASSERT_TRUE(describe_target(dir.path(), &target).ok());
  std::array<Status, 2> outcome;
  std::array<PhaseResult, 2> results;
  std::atomic<bool> stop{false};
  run_ranks(2, [&](Comm& comm) {
    const auto rank = static_cast<size_t>(comm.rank());
    auto phase = PhaseHarness::parse("metadata", {{"files_per_rank", 10}, {"stride", 2}});
    ASSERT_NE(phase, nullptr);
    std::unique_ptr<Store> store;
    ASSERT_TRUE(open_posix_store(dir.path(), false, &store).ok());
    Progress progress;
    PhaseContext ctx{comm, dir.path(), target, stop, progress, "md", false, nullptr};
    ctx.store = store.get();
    outcome[rank] = phase->run(ctx, &results[rank]);
  });
  for (size_t r = 0; r < 2; ++r) ASSERT_TRUE(outcome[r].ok()) << "rank " << r << ": " << outcome[r].message();
  bool warned = false;
  for (const std::string& w : results[0].warnings)
    warned = warned || contains(w, "100% of the stat, open and read");
  EXPECT_TRUE(warned) << (results[0].warnings.empty() ? "no warning" : results[0].warnings[0]);
  EXPECT_TRUE(list_files(dir.path()).empty());
}

}  // namespace
}  // namespace iofab::testing
