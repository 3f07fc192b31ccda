// Concurrent groups in a suite: what parses, and what is refused with which message.
#include <string>

#include <gtest/gtest.h>

#include "driver/suite/suite.h"
#include "test_util.h"

namespace iofab {
namespace {

using iofab::testing::contains;

constexpr const char* kLoader =
    R"({"kind": "train_read", "name": "loader", "num_samples": 64, "sample_size": "4KiB", "epochs": 1})";
constexpr const char* kCheckpoint =
    R"({"kind": "checkpoint", "name": "ckpt", "mode": "async", "checkpoint_size": "8MiB", "count": 2, "gap": "100ms"})";

std::string suite_with(const std::string& phases) { return R"({"phases": [)" + phases + "]}"; }

Status parse(const std::string& text, Suite* s, const std::vector<std::string>& sets = {}) {
  return parse_suite(text, "t.json", sets, s);
}

TEST(PhaseGroups, AGroupFlattensIntoThePhasesInOrderAndNamesItsClock) {
  Suite s;
  const std::string text = suite_with(std::string(R"({"kind": "ingest", "name": "first"}, {"concurrent": [)") +
                                      kLoader + ", " + kCheckpoint + R"(], "clock": "ckpt"}, {"kind": "ingest"})");
  ASSERT_TRUE(parse(text, &s).ok()) << parse(text, &s).message();
  ASSERT_EQ(s.phases.size(), 4u);
  EXPECT_EQ(s.phases[0].group, -1);
  EXPECT_EQ(s.phases[1].group, 0);
  EXPECT_EQ(s.phases[2].group, 0);
  EXPECT_EQ(s.phases[3].group, -1);
  ASSERT_EQ(s.groups.size(), 1u);
  EXPECT_EQ(s.groups[0].first, 1u);
  EXPECT_EQ(s.groups[0].count, 2u);
  EXPECT_EQ(s.groups[0].clock, 2);
  EXPECT_TRUE(s.groups[0].solo);
  EXPECT_EQ(s.groups[0].label, "loader + ckpt");
  EXPECT_TRUE(has_concurrent_groups(s));
}

TEST(PhaseGroups, WithoutClockEveryKindMayJoinAndSoloCanBeOff) {
  Suite s;
  const std::string text = suite_with(std::string(R"({"concurrent": [{"kind": "ingest"}, )") + kCheckpoint +
                                      R"(], "solo": false})");
  ASSERT_TRUE(parse(text, &s).ok()) << parse(text, &s).message();
  EXPECT_EQ(s.groups[0].clock, -1);
  EXPECT_FALSE(s.groups[0].solo);
  Suite plain;
  ASSERT_TRUE(parse(suite_with(kLoader), &plain).ok());
  EXPECT_FALSE(has_concurrent_groups(plain));
}

TEST(PhaseGroups, APhaseThatCannotFollowTheClockIsRefusedNamingItsPath) {
  Suite s;
  const Status st = parse(suite_with(std::string(R"({"concurrent": [)") + kLoader + ", " + kCheckpoint +
                                     R"(], "clock": "loader"})"),
                          &s);
  ASSERT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(contains(st.message(), "phases[0].concurrent[1]: a checkpoint phase runs to its own end and cannot "
                                     "follow the group's clock (loader); kinds that can: train_read"))
      << st.message();
}

TEST(PhaseGroups, TheRefusalOfAFollowerReadsAsEnglish) {
  Suite s;
  const Status st = parse(suite_with(std::string(R"({"concurrent": [)") + kLoader +
                                     R"(, {"kind": "ingest"}], "clock": "loader"})"),
                          &s);
  EXPECT_TRUE(contains(st.message(), "phases[0].concurrent[1]: an ingest phase runs to its own end")) << st.message();
}

TEST(PhaseGroups, BadGroupShapesAreRefusedWithTheExpectedForm) {
  struct Case {
    std::string phases;
    std::string message;
  };
  const std::vector<Case> cases = {
      {std::string(R"({"concurrent": [)") + kLoader + "]}", "phases[0].concurrent: expected an array of 2 to 8"},
      {R"({"concurrent": "loader"})", "phases[0].concurrent: expected an array of 2 to 8"},
      {std::string(R"({"concurrent": [)") + kLoader + ", " + kCheckpoint + R"(], "clock": "nope"})",
       "phases[0].clock: expected the name of one of the group's phases (loader + ckpt), got \"nope\""},
      {std::string(R"({"concurrent": [)") + kLoader + ", " + kCheckpoint + R"(], "solo": "yes"})",
       "phases[0].solo: expected true"},
      {std::string(R"({"concurrent": [)") + kLoader + ", " + kCheckpoint + R"(], "when": 1})",
       "phases[0].when: unknown key of a concurrent group; expected concurrent, clock, solo"},
      {std::string(R"({"concurrent": [)") + kLoader + R"(, {"concurrent": [{"kind": "ingest"}, {"kind": "ingest"}]}]})",
       "phases[0].concurrent[1]: concurrent groups do not nest"},
      {std::string(R"({"concurrent": [)") + kLoader + R"(, {"kind": "ingest", "file_size": "huge"}]})",
       "phases[0].concurrent[1].file_size"},
  };
  for (const auto& c : cases) {
    Suite s;
    const Status st = parse(suite_with(c.phases), &s);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << c.phases;
    EXPECT_TRUE(contains(st.message(), c.message)) << st.message();
  }
}

TEST(PhaseGroups, ARestoreOfACheckpointInItsOwnGroupIsRefused) {
  Suite s;
  const Status st = parse(suite_with(std::string(R"({"concurrent": [)") + kCheckpoint +
                                     R"(, {"kind": "restore", "checkpoint": "ckpt"}]})"),
                          &s);
  ASSERT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(contains(st.message(), "phases[0].concurrent[1].checkpoint: phase \"ckpt\" runs at the same time as "
                                     "restore (the same concurrent group)"))
      << st.message();
}

TEST(PhaseGroups, SetReachesPhasesInsideAGroupAndScaleReachesTheirCheckpoints) {
  Suite s;
  const std::string text = suite_with(std::string(R"({"concurrent": [)") + kLoader + ", " + kCheckpoint + "]}");
  ASSERT_TRUE(parse(text, &s, {"phases.loader.epochs=3", "checkpoint_scale=4"}).ok());
  EXPECT_EQ(s.phases[0].params["epochs"], 3);
  EXPECT_EQ(s.phases[1].params["scale"], 4);
  const Status st = parse(text, &s, {"phases.nope.epochs=3"});
  EXPECT_TRUE(contains(st.message(), "the suite's phases: loader, ckpt")) << st.message();
}

TEST(PhaseGroups, NamesStayUniqueAcrossGroupsAndPhases) {
  Suite s;
  const Status st = parse(suite_with(std::string(kLoader) + R"(, {"concurrent": [)" + kLoader + ", " + kCheckpoint +
                                     "]}"),
                          &s);
  EXPECT_TRUE(contains(st.message(), "phases[1].concurrent[0].name: \"loader\" is used by an earlier phase"))
      << st.message();
}

TEST(PhaseGroups, SoloAndVsSoloMetricsAreCheckable) {
  Suite s;
  const std::string loader_with_checks =
      R"({"kind": "train_read", "name": "loader", "num_samples": 64, "sample_size": "4KiB", "checks": [
          {"metric": "au_during_drain", "op": ">=", "value": 0.9},
          {"metric": "au_vs_solo", "op": ">=", "value": 0.95},
          {"metric": "sample_latency_p99_s_solo", "op": "<=", "value": "1s"}]})";
  const std::string ckpt_with_checks =
      R"({"kind": "checkpoint", "name": "ckpt", "checkpoint_size": "8MiB", "checks": [
          {"metric": "stall_seconds_mean_vs_solo", "op": "<=", "value": 1.5}]})";
  const std::string text =
      suite_with(R"({"concurrent": [)" + loader_with_checks + ", " + ckpt_with_checks + R"(], "clock": "ckpt"})");
  const Status st = parse(text, &s);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(s.phases[0].checks.size(), 3u);
  EXPECT_DOUBLE_EQ(s.phases[0].checks[2].threshold, 1.0);
  const Status bad = parse(suite_with(R"({"kind": "train_read", "checks": [{"metric": "au_vs_alone"}]})"), &s);
  EXPECT_EQ(bad.code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace iofab
