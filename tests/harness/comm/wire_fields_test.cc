// Counters declared once as a table: written, read back checked, and merged by their row's rule.
#include "harness/comm/wire_fields.h"

#include <gtest/gtest.h>

namespace iofab {
namespace {

struct Counts {
  uint64_t bytes = 0;
  uint64_t end_ns = 0;
};

constexpr U64Field<Counts> kFields[] = {
    {.name = "bytes", .member = &Counts::bytes},
    {.name = "end_ns", .member = &Counts::end_ns, .join = Join::kMax},
};

TEST(WireFields, WhatIsWrittenReadsBackAndEveryFieldIsChecked) {
  nlohmann::json j;
  u64_fields_to_wire<Counts>(Counts{.bytes = 7, .end_ns = 9}, kFields, &j);
  Counts back;
  ASSERT_TRUE(u64_fields_from_wire<Counts>(j, kFields, &back));
  EXPECT_EQ(back.bytes, 7u);
  EXPECT_EQ(back.end_ns, 9u);

  Counts untouched{.bytes = 1, .end_ns = 1};
  nlohmann::json missing = j;
  missing.erase("end_ns");
  EXPECT_FALSE(u64_fields_from_wire<Counts>(missing, kFields, &untouched));
  nlohmann::json negative = j;
  negative["bytes"] = -1;
  EXPECT_FALSE(u64_fields_from_wire<Counts>(negative, kFields, &untouched));
  nlohmann::json text = j;
  text["bytes"] = "7";
  EXPECT_FALSE(u64_fields_from_wire<Counts>(text, kFields, &untouched));
  EXPECT_EQ(untouched.bytes, 1u) << "a refused value leaves the struct as it was";
}

TEST(WireFields, MergeSumsCountsAndKeepsTheLatestEnd) {
  Counts into{.bytes = 5, .end_ns = 100};
  merge_u64_fields<Counts>(Counts{.bytes = 3, .end_ns = 40}, kFields, &into);
  EXPECT_EQ(into.bytes, 8u);
  EXPECT_EQ(into.end_ns, 100u);
}

}  // namespace
}  // namespace iofab
