#include "harness/stats/time_series.h"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace iofab {
namespace {

using Bytes = std::vector<uint64_t>;

TEST(TimeSeries, AddsIntoIntervals) {
  TimeSeries ts;  // 100 ms
  EXPECT_EQ(ts.interval_ns(), 100'000'000u);
  EXPECT_TRUE(ts.bytes().empty());
  ts.add(0, 10);
  ts.add(99'999'999, 5);   // still the first interval
  ts.add(100'000'000, 7);  // a boundary starts the next one
  ts.add(350'000'000, 1);  // skipped intervals read 0
  EXPECT_EQ(ts.bytes(), (Bytes{15, 7, 0, 1}));
  ts.add(120'000'000, 3);  // out of order is fine
  EXPECT_EQ(ts.bytes(), (Bytes{15, 10, 0, 1}));
}

TEST(TimeSeries, CustomInterval) {
  TimeSeries ts(1'000);
  ts.add(2'500, 4);
  EXPECT_EQ(ts.interval_ns(), 1'000u);
  EXPECT_EQ(ts.bytes(), (Bytes{0, 0, 4}));
  EXPECT_EQ(TimeSeries(0).interval_ns(), 1u);  // no division by zero
}

TEST(TimeSeries, BogusTimeDoesNotExhaustMemory) {
  TimeSeries ts;
  ts.add(UINT64_MAX, 8);  // e.g. an end before its start, wrapped around
  ASSERT_FALSE(ts.bytes().empty());
  EXPECT_LE(ts.bytes().size(), size_t{1} << 22);
  EXPECT_EQ(ts.bytes().back(), 8u);
}

TEST(TimeSeries, Rates) {
  TimeSeries ts;  // 100 ms
  ts.add(0, 100'000'000);
  ts.add(150'000'000, 50);
  const std::vector<double> r = ts.rates();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_DOUBLE_EQ(r[0], 1e9);
  EXPECT_DOUBLE_EQ(r[1], 500.0);

  TimeSeries ms(1'000'000);  // 1 ms
  ms.add(0, 4096);
  EXPECT_DOUBLE_EQ(ms.rates()[0], 4096e3);
  EXPECT_TRUE(TimeSeries().rates().empty());
}

TEST(TimeSeries, MergeAddsIntervalByInterval) {
  TimeSeries a;
  TimeSeries b;
  a.add(0, 1);
  a.add(100'000'000, 2);
  b.add(50'000'000, 10);
  b.add(250'000'000, 20);  // longer than a
  a.merge(b);
  EXPECT_EQ(a.bytes(), (Bytes{11, 2, 20}));
  b.merge(TimeSeries());  // empty changes nothing
  EXPECT_EQ(b.bytes(), (Bytes{10, 0, 20}));
  TimeSeries c;
  c.merge(b);
  EXPECT_EQ(c.bytes(), b.bytes());
}

TEST(TimeSeries, MergeRebinsUnequalIntervals) {
  TimeSeries coarse(200);
  TimeSeries fine(100);
  fine.add(0, 1);
  fine.add(150, 2);
  fine.add(250, 4);
  coarse.merge(fine);
  EXPECT_EQ(coarse.interval_ns(), 200u);
  EXPECT_EQ(coarse.bytes(), (Bytes{3, 4}));
}

TEST(TimeSeries, JsonRoundTrip) {
  TimeSeries ts(50'000'000);
  ts.add(0, 123);
  ts.add(120'000'000, UINT64_MAX - 1);
  const nlohmann::json j = ts.to_json();
  EXPECT_EQ(j.at("interval_ns"), 50'000'000u);
  EXPECT_EQ(j.at("bytes"), nlohmann::json::array({123u, 0u, UINT64_MAX - 1}));
  TimeSeries back;
  ASSERT_TRUE(back.from_json(nlohmann::json::parse(j.dump())));
  EXPECT_EQ(back.interval_ns(), ts.interval_ns());
  EXPECT_EQ(back.bytes(), ts.bytes());
  EXPECT_EQ(back.to_json(), j);

  ASSERT_TRUE(back.from_json(TimeSeries().to_json()));  // empty
  EXPECT_TRUE(back.bytes().empty());
  EXPECT_EQ(back.interval_ns(), 100'000'000u);
}

TEST(TimeSeries, FromJsonRejectsMalformed) {
  TimeSeries ts(1'000);
  ts.add(1'500, 9);
  const nlohmann::json before = ts.to_json();
  const std::vector<nlohmann::json> bad = {
      nlohmann::json::parse(R"({"bytes":[1]})"),
      nlohmann::json::parse(R"({"interval_ns":100})"),
      nlohmann::json::parse(R"({"interval_ns":0,"bytes":[1]})"),
      nlohmann::json::parse(R"({"interval_ns":-100,"bytes":[1]})"),
      nlohmann::json::parse(R"({"interval_ns":1.5,"bytes":[1]})"),
      nlohmann::json::parse(R"({"interval_ns":"100","bytes":[1]})"),
      nlohmann::json::parse(R"({"interval_ns":100,"bytes":[1,-2]})"),
      nlohmann::json::parse(R"({"interval_ns":100,"bytes":[1,2.5]})"),
      nlohmann::json::parse(R"({"interval_ns":100,"bytes":[1,"2"]})"),
      nlohmann::json::parse(R"({"interval_ns":100,"bytes":{"0":1}})"),
      nlohmann::json::parse(R"({"interval_ns":100,"bytes":5})"),
      nlohmann::json::parse(R"([100,[1]])"),
      nlohmann::json(),
  };
  for (const nlohmann::json& j : bad) {
    EXPECT_FALSE(ts.from_json(j)) << j.dump();
    EXPECT_EQ(ts.to_json(), before) << j.dump();
  }
}

}  // namespace
}  // namespace iofab
