// The preflight's arithmetic, apart from any target: the suite's peak over its steps, and the peak plus a
// margin against the free bytes.
#include "driver/runner/preflight.h"

#include <gtest/gtest.h>

namespace iofab {
namespace {

Suite two_ingests() {
  Suite s;
  const Status st = parse_suite(R"({"phases": [
      {"kind": "ingest", "name": "small", "files_per_worker": 1, "file_size": "1MiB", "workers": 1},
      {"kind": "ingest", "name": "big", "files_per_worker": 4, "file_size": "1MiB", "workers": 2}]})",
                                "test", {}, &s);
  EXPECT_TRUE(st.ok()) << st.message();
  return s;
}

TEST(Preflight, WithoutKeepThePeakIsTheBiggestStepAndWithKeepTheSum) {
  const Suite s = two_ingests();
  const uint64_t small = s.phases[0].phase->planned_bytes(2).value_or(0);
  const uint64_t big = s.phases[1].phase->planned_bytes(2).value_or(0);
  ASSERT_GT(big, small);
  PreflightPlan plan;
  ASSERT_TRUE(plan_preflight(s, 2, false, &plan).ok());
  EXPECT_EQ(plan.peak, big);
  EXPECT_EQ(plan.biggest, "big");
  ASSERT_TRUE(plan_preflight(s, 2, true, &plan).ok());
  EXPECT_EQ(plan.peak, small + big);
}

TEST(Preflight, ThePeakPlusTheMarginMustFitTheFreeBytes) {
  PreflightPlan plan;
  plan.peak = 1ULL << 30;
  plan.biggest = "checkpoint";
  const uint64_t need = plan.peak + preflight_margin(plan.peak);
  std::string note;
  EXPECT_TRUE(check_preflight(plan, need, "/t", &note).ok());
  const Status short_by_one = check_preflight(plan, need - 1, "/t", &note);
  EXPECT_EQ(short_by_one.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(short_by_one.message().find("target /t has " + std::to_string(need - 1) + " bytes free"),
            std::string::npos)
      << short_by_one.message();
  EXPECT_NE(short_by_one.message().find("for phase checkpoint"), std::string::npos) << short_by_one.message();
  EXPECT_TRUE(note.empty());
}

TEST(Preflight, ATargetWithoutAFreeSpaceFigureIsNotCheckedAndTheNoteSaysSo) {
  PreflightPlan plan;
  plan.peak = 5000;
  std::string note;
  EXPECT_TRUE(check_preflight(plan, std::nullopt, "s3://b/p", &note).ok());
  EXPECT_NE(note.find("5000 bytes"), std::string::npos) << note;
  plan.peak = 0;  // a suite that writes nothing needs no space, anywhere
  EXPECT_TRUE(check_preflight(plan, 0, "/t", &note).ok());
  EXPECT_TRUE(note.empty());
}

}  // namespace
}  // namespace iofab
