// The Unit table (harness/phase/unit.h): one row per unit, in the enum's order, its text found back, its
// thresholds parsed in it; the runner's details.units and the suite's errors read the same rows.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "harness/phase/unit.h"

namespace iofab::testing {
namespace {

constexpr Unit kEveryUnit[] = {Unit::kBytes, Unit::kBytesPerSecond, Unit::kSeconds,     Unit::kFraction,
                               Unit::kCount, Unit::kRatio,          Unit::kOpsPerSecond};

TEST(UnitTable, EachUnitHasOneRowWhoseTextFindsItBack) {
  std::set<std::string_view> texts;
  for (Unit u : kEveryUnit) {
    const UnitRow& row = unit_row(u);
    SCOPED_TRACE(std::string(row.text));
    EXPECT_EQ(row.unit, u);
    EXPECT_TRUE(texts.insert(row.text).second) << "two units with one text";
    EXPECT_FALSE(row.example.empty());
    ASSERT_NE(find_unit(row.text), nullptr);
    EXPECT_EQ(find_unit(row.text)->unit, u);
  }
  EXPECT_EQ(find_unit("furlongs"), nullptr);
}

TEST(UnitTable, ThresholdsParseInTheirUnit) {
  using nlohmann::json;
  EXPECT_EQ(parse_threshold(json("1GiB"), Unit::kBytes), 1073741824.0);
  EXPECT_EQ(parse_threshold(json("2GB/s"), Unit::kBytesPerSecond), 2e9);
  EXPECT_EQ(parse_threshold(json("180s"), Unit::kSeconds), 180.0);
  EXPECT_EQ(parse_threshold(json("90%"), Unit::kFraction), 0.9);
  EXPECT_EQ(parse_threshold(json(1.5), Unit::kRatio), 1.5);  // a number is taken as it is, in any unit
  EXPECT_EQ(parse_threshold(json("2GB/s"), Unit::kBytes), std::nullopt);
  EXPECT_EQ(parse_threshold(json(true), Unit::kCount), std::nullopt);
  EXPECT_EQ(unit_row(Unit::kBytesPerSecond).text, "bytes/s");
  EXPECT_EQ(unit_row(Unit::kOpsPerSecond).text, "ops/s");
}

}  // namespace
}  // namespace iofab::testing
