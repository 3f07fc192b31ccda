// Issue 42 item 12: an integer field takes an exact integer in any JSON notation (1e3, 2.0), as
// docs/suite-reference.md says counts take 175e9, and refuses a number with a fraction naming the field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "driver/targets/s3/s3_settings.h"
#include "harness/phase/params.h"
#include "test_util.h"

namespace iofab {
namespace {

using nlohmann::json;
using testing::contains;

TEST(WholeNumbers, AnIntegerFieldTakesExactIntegersInAnyNotation) {
  const json obj = json::parse(R"({"sci": 1e3, "dot": 2.0, "neg": -4e0, "big": 1.2e2})");
  ParamReader r(obj, "phases[0]");
  EXPECT_EQ(r.integer("sci", 1, 1, 1000000), 1000);
  EXPECT_EQ(r.integer("dot", 1, 1, 1024), 2);
  EXPECT_EQ(r.integer("neg", 0, -10, 10), -4);
  EXPECT_EQ(r.integer("big", 1, 1, 1024), 120);
  EXPECT_TRUE(r.errors().empty()) << r.errors()[0];
  EXPECT_EQ(r.resolved()["sci"].get<int64_t>(), 1000);
}

TEST(WholeNumbers, AFractionIsRefusedNamingTheFieldAndTheForm) {
  const json obj = json::parse(R"({"half": 2.5, "tiny": 1e-3, "huge": 1e300, "sci_high": 2e3})");
  ParamReader r(obj, "phases[1]");
  EXPECT_EQ(r.integer("half", 1, 1, 1024), 1);
  EXPECT_EQ(r.integer("tiny", 1, 0, 1024), 1);
  EXPECT_EQ(r.integer("huge", 1, 1, 1024), 1);
  EXPECT_EQ(r.integer("sci_high", 1, 1, 1024), 1);
  ASSERT_EQ(r.errors().size(), 4u);
  EXPECT_EQ(r.errors()[0], "phases[1].half: expected an integer in [1, 1024], got 2.5");
  EXPECT_TRUE(contains(r.errors()[1], "phases[1].tiny: expected an integer in [0, 1024], got 0.001"))
      << r.errors()[1];
  EXPECT_TRUE(contains(r.errors()[2], "phases[1].huge: expected an integer in [1, 1024]")) << r.errors()[2];
  // Out of range, not "not an integer": the message must not contradict the value.
  EXPECT_EQ(r.errors()[3], "phases[1].sci_high: expected an integer in [1, 1024], got 2000.0");
}

TEST(WholeNumbers, TheS3SectionsCountsTakeThemToo) {
  S3Settings s;
  std::vector<std::string> errors;
  parse_s3_settings(json::parse(R"({"max_retries": 1e1, "connections": 4.0})"), &s, &errors);
  EXPECT_TRUE(errors.empty()) << errors[0];
  EXPECT_EQ(s.max_retries, 10u);
  EXPECT_EQ(s.connections, 4u);
  parse_s3_settings(json::parse(R"({"max_retries": 1.5})"), &s, &errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(contains(errors[0], "s3.max_retries: expected an integer")) << errors[0];
}

}  // namespace
}  // namespace iofab
