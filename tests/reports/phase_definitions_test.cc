// Phases put codes and counts in details; the reporters put them in words.
#include "reports/phase_definitions.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace iofab {
namespace {

using nlohmann::json;

PhaseReport phase(const std::string& kind, json details) {
  PhaseReport p;
  p.name = kind;
  p.kind = kind;
  p.details = std::move(details);
  return p;
}

TEST(PhaseDefinitions, ASyncCheckpointNamesWhatItsStallHoldsAndHowItIsProjected) {
  const std::string t = phase_definitions(phase(
      "checkpoint", {{"mode", "sync"},
                     {"stall_includes", {"write", "fsync", "commit"}},
                     {"budget", {{"projection_basis", "slowest_checkpoint_aggregate"}, {"projection_writers", 8}}}}));
  EXPECT_NE(t.find("The stall is the write of every shard + its fsync + the commit"), std::string::npos) << t;
  EXPECT_NE(t.find("(8 writers)"), std::string::npos) << t;
  EXPECT_EQ(t.find("drain in the background"), std::string::npos) << t;
}

TEST(PhaseDefinitions, AnAsyncCheckpointStallIsTheStagingCopy) {
  const std::string t =
      phase_definitions(phase("checkpoint", {{"mode", "async"}, {"stall_includes", {"staging_copy"}}}));
  EXPECT_EQ(t,
            "The stall is the copy of every shard into host staging memory. The write and its fsync drain in the "
            "background.");
}

TEST(PhaseDefinitions, RestoreBudgetIsDefinedOnlyWhenTheReportHasOne) {
  EXPECT_NE(phase_definitions(phase("restore", {{"restore_budget", {{"projection_basis", "measured_read"}}}}))
                .find("fanout x the full-size checkpoint's bytes"),
            std::string::npos);
  EXPECT_EQ(phase_definitions(phase("restore", {{"fanout", 8}})), "");
}

TEST(PhaseDefinitions, ReportsWithoutTheCodesOrOfOtherKindsGetNone) {
  // A report written before the codes carried prose in details: nothing to define, nothing invented.
  EXPECT_EQ(phase_definitions(phase("checkpoint", {{"stall_definition", "write + fsync"}})), "");
  EXPECT_EQ(phase_definitions(phase("ingest", {{"stall_includes", {"write"}}})), "");
  EXPECT_EQ(phase_definitions(phase("checkpoint", json::array())), "");
}

}  // namespace
}  // namespace iofab
