// busbw of each collective over the verbs WRITE ceiling, placed in the rdma phase's details.
#include <gtest/gtest.h>

#include "workloads/phase_table.h"
#include "workloads/rdma/fabric_ceiling.h"

namespace iofab {
namespace {

using nlohmann::json;

TEST(RdmaFabricCeiling, RatioPerCollectiveOp) {
  const std::vector<PhaseFigures> phases = {
      {"coll",
       "collectives",
       {{"busbw.all_reduce.max", 20e9},
        {"busbw.all_gather.max", 10e9},
        {"busbw.all_reduce.1048576", 5e9},
        {"algbw.all_reduce.max", 15e9}}},
      {"verbs", "rdma", {{"write_bytes_per_s.max", 25e9}}},
      {"ingest", "ingest", {{"write_bytes_per_s", 1e9}}},
  };
  const json r = collectives_vs_verbs(phases, "verbs");
  ASSERT_EQ(r.size(), 2u) << r.dump();  // only busbw.<op>.max names
  for (const auto& rec : r) {
    EXPECT_EQ(rec["collectives_phase"], "coll");
    EXPECT_EQ(rec["rdma_phase"], "verbs");
    const double expect = rec["op"] == "all_reduce" ? 0.8 : 0.4;
    EXPECT_DOUBLE_EQ(rec["ratio"].get<double>(), expect) << rec.dump();
  }
}

TEST(RdmaFabricCeiling, NothingWithoutBothSides) {
  EXPECT_TRUE(collectives_vs_verbs({{"verbs", "rdma", {{"write_bytes_per_s.max", 25e9}}}}, "verbs").empty());
  EXPECT_TRUE(collectives_vs_verbs({{"coll", "collectives", {{"busbw.all_reduce.max", 20e9}}},
                                    {"verbs", "rdma", {}}},  // skipped rdma phase: no figure
                                   "verbs")
                  .empty());
}

struct FakePhaseReport {
  std::string name, kind;
  json metrics = json::object();
  json details = json::object();
};

TEST(RdmaFabricCeiling, RunnerHookFillsRdmaDetailsOnly) {
  std::vector<FakePhaseReport> phases(3);
  phases[0] = {"coll", "collectives", {{"busbw.all_reduce.max", 12e9}}, json::object()};
  phases[1] = {"verbs", "rdma", {{"write_bytes_per_s.max", 24e9}}, json::object()};
  phases[2] = {"verbs_skipped", "rdma", json::object(), json::object()};
  add_collectives_vs_verbs(phases);
  ASSERT_TRUE(phases[1].details.contains("collectives_vs_verbs"));
  EXPECT_DOUBLE_EQ(phases[1].details["collectives_vs_verbs"][0]["ratio"].get<double>(), 0.5);
  EXPECT_FALSE(phases[0].details.contains("collectives_vs_verbs"));
  EXPECT_FALSE(phases[2].details.contains("collectives_vs_verbs"));
}

}  // namespace
}  // namespace iofab

namespace iofab {
namespace {

// The runner joins across phases only through the kinds' after_all: the rdma row must declare it,
// and no other kind does (a join the runner would run for every suite).
TEST(RdmaFabricCeiling, TheRdmaRowDeclaresTheJoinAndNoOtherRowDoes) {
  for (const auto& k : phase_table()) {
    if (k.name == "rdma") {
      EXPECT_EQ(k.after_all, &join_collectives_and_verbs);
    } else {
      EXPECT_EQ(k.after_all, nullptr) << k.name;
    }
  }
}

}  // namespace
}  // namespace iofab
