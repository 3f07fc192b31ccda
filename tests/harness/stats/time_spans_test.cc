#include "harness/stats/time_spans.h"

#include <gtest/gtest.h>

namespace iofab {
namespace {

TEST(TimeSpans, MergeSortsJoinsOverlappingAndTouchingAndDropsEmpty) {
  const std::vector<TimeSpan> m = merge_spans({{50, 60}, {10, 20}, {15, 30}, {30, 35}, {40, 40}, {70, 65}});
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].start, 10u);
  EXPECT_EQ(m[0].end, 35u);
  EXPECT_EQ(m[1].start, 50u);
  EXPECT_EQ(m[1].end, 60u);
  EXPECT_EQ(spans_length(m), 35u);
}

TEST(TimeSpans, OverlapIsTheLengthOfTheIntersection) {
  const auto a = merge_spans({{0, 40}, {50, 100}});
  const auto b = merge_spans({{10, 20}, {30, 60}, {95, 200}});
  // [10,20] 10 + [30,40] 10 + [50,60] 10 + [95,100] 5
  EXPECT_EQ(spans_overlap(a, b), 35u);
  EXPECT_EQ(spans_overlap(b, a), 35u);
  EXPECT_EQ(spans_overlap(a, {}), 0u);
  EXPECT_EQ(spans_overlap(a, a), spans_length(a));
}

TEST(TimeSpans, CoverIncludesTheStartAndExcludesTheEnd) {
  const auto m = merge_spans({{10, 20}, {30, 40}});
  EXPECT_FALSE(spans_cover(m, 9));
  EXPECT_TRUE(spans_cover(m, 10));
  EXPECT_TRUE(spans_cover(m, 19));
  EXPECT_FALSE(spans_cover(m, 20));
  EXPECT_FALSE(spans_cover(m, 25));
  EXPECT_TRUE(spans_cover(m, 30));
  EXPECT_FALSE(spans_cover(m, 40));
  EXPECT_FALSE(spans_cover({}, 0));
}

}  // namespace
}  // namespace iofab
