#include "harness/stats/histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace iofab {
namespace {

constexpr double kRelError = 0.01;  // the contract
constexpr double kQuantiles[] = {0.5, 0.9, 0.99, 0.999};

// The order statistic Histogram::percentile promises to approximate: nearest rank, ceil(q * n), 1-based.
uint64_t exact_percentile(const std::vector<uint64_t>& sorted, double q) {
  const uint64_t n = sorted.size();
  const auto rank = std::clamp<uint64_t>(static_cast<uint64_t>(std::ceil(q * static_cast<double>(n))), 1, n);
  return sorted[rank - 1];
}

std::vector<uint64_t> samples(const std::function<double(std::mt19937_64&)>& draw, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> out(100'000);
  for (uint64_t& v : out) v = static_cast<uint64_t>(std::max(1.0, std::round(draw(rng))));
  return out;
}

void expect_matches_exact(const std::vector<uint64_t>& values) {
  Histogram h;
  long double sum = 0;
  for (uint64_t v : values) {
    h.record(v);
    sum += v;
  }
  std::vector<uint64_t> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(h.count(), values.size());
  EXPECT_EQ(h.min(), sorted.front());
  EXPECT_EQ(h.max(), sorted.back());
  EXPECT_DOUBLE_EQ(h.mean(), static_cast<double>(sum / values.size()));
  EXPECT_EQ(h.overflow(), 0u);
  EXPECT_EQ(h.percentile(1.0), sorted.back());
  EXPECT_EQ(h.percentile(0.0), sorted.front());
  for (double q : kQuantiles) {
    const double exact = static_cast<double>(exact_percentile(sorted, q));
    const double got = static_cast<double>(h.percentile(q));
    EXPECT_LE(std::abs(got - exact), kRelError * exact) << "q=" << q << " exact=" << exact << " got=" << got;
  }
}

TEST(Histogram, PercentilesUniform1usTo10ms) {
  std::uniform_int_distribution<uint64_t> dist(1'000, 10'000'000);
  expect_matches_exact(samples([&](std::mt19937_64& rng) { return static_cast<double>(dist(rng)); }, 1));
}

TEST(Histogram, PercentilesLognormal) {
  // Median ~100 us with a long tail, as storage latencies look.
  std::lognormal_distribution<double> dist(std::log(100'000.0), 1.0);
  expect_matches_exact(samples([&](std::mt19937_64& rng) { return dist(rng); }, 2));
}

TEST(Histogram, PercentilesExponential) {
  std::exponential_distribution<double> dist(1.0 / 1'000'000.0);  // mean 1 ms
  expect_matches_exact(samples([&](std::mt19937_64& rng) { return dist(rng); }, 3));
}

TEST(Histogram, PercentilesSmallValuesAreExact) {
  std::uniform_int_distribution<uint64_t> dist(0, 200);
  std::mt19937_64 rng(4);
  std::vector<uint64_t> values(10'000);
  Histogram h;
  for (uint64_t& v : values) {
    v = dist(rng);
    h.record(v);
  }
  std::sort(values.begin(), values.end());
  for (double q : kQuantiles) EXPECT_EQ(h.percentile(q), exact_percentile(values, q)) << q;
}

TEST(Histogram, EveryMagnitudeWithinOnePercent) {
  // One sample between a 0 and a kMaxValue, so the clamp to [min, max] cannot help: this is the bucket
  // midpoint's own error, over the whole range.
  for (double v = 1; v <= static_cast<double>(Histogram::kMaxValue); v *= 1.013) {
    for (uint64_t value : {static_cast<uint64_t>(v), static_cast<uint64_t>(v) + 1}) {
      Histogram h;
      h.record(0);
      h.record(value);
      h.record(Histogram::kMaxValue);
      const double got = static_cast<double>(h.percentile(0.5));
      ASSERT_LE(std::abs(got - static_cast<double>(value)), kRelError * static_cast<double>(value)) << value;
    }
  }
}

TEST(Histogram, Empty) {
  Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.overflow(), 0u);
  for (double q : {0.0, 0.5, 0.999, 1.0}) EXPECT_EQ(h.percentile(q), 0u);
  const nlohmann::json j = h.to_json();
  EXPECT_EQ(j.at("count"), 0);
  EXPECT_EQ(j.at("min"), 0);
  EXPECT_EQ(j.at("max"), 0);
  EXPECT_TRUE(j.at("buckets").empty());
  Histogram back;
  back.record(5);
  ASSERT_TRUE(back.from_json(nlohmann::json::parse(j.dump())));
  EXPECT_EQ(back.count(), 0u);
  EXPECT_EQ(back.percentile(0.5), 0u);
  // Loaded empty, it still takes a new minimum.
  back.record(7);
  EXPECT_EQ(back.min(), 7u);
}

TEST(Histogram, ZeroValue) {
  Histogram h;
  h.record(0);
  h.record(0);
  h.record(10);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 10u);
  EXPECT_EQ(h.percentile(0.5), 0u);
  EXPECT_EQ(h.percentile(0.0), 0u);
  EXPECT_DOUBLE_EQ(h.mean(), 10.0 / 3);
}

TEST(Histogram, OverflowCountedAndMaxExact) {
  Histogram h;
  h.record(1'000);
  h.record(Histogram::kMaxValue);  // in range: not overflow
  h.record(Histogram::kMaxValue + 1);
  h.record(UINT64_MAX);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(h.overflow(), 2u);
  EXPECT_EQ(h.max(), UINT64_MAX);
  EXPECT_EQ(h.percentile(1.0), UINT64_MAX);
  const double top = static_cast<double>(h.percentile(0.75));
  EXPECT_GE(top, static_cast<double>(Histogram::kMaxValue) * (1 - kRelError));
  // The sum passes 2^64 and stays exact enough for the mean.
  const long double sum = 1000.0L + Histogram::kMaxValue + (Histogram::kMaxValue + 1.0L) + UINT64_MAX;
  EXPECT_DOUBLE_EQ(h.mean(), static_cast<double>(sum / 4));

  Histogram back;
  ASSERT_TRUE(back.from_json(nlohmann::json::parse(h.to_json().dump())));
  EXPECT_EQ(back.overflow(), 2u);
  EXPECT_EQ(back.max(), UINT64_MAX);
  EXPECT_NEAR(back.mean(), h.mean(), h.mean() * 1e-12);  // a sum past 2^64 travels as a double
}

TEST(Histogram, RecordNEqualsRepeatedRecord) {
  Histogram a;
  Histogram b;
  a.record_n(12'345, 5);
  a.record_n(99, 0);  // no sample: must not move min
  for (int i = 0; i < 5; ++i) b.record(12'345);
  EXPECT_EQ(a.to_json(), b.to_json());
  EXPECT_EQ(a.min(), 12'345u);

  Histogram big;
  big.record_n(UINT64_MAX, 3);  // the product passes 2^64
  EXPECT_EQ(big.overflow(), 3u);
  EXPECT_DOUBLE_EQ(big.mean(), static_cast<double>(UINT64_MAX));
}

TEST(Histogram, MergeEqualsHistogramOfUnion) {
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> fast(std::log(20'000.0), 0.5);
  std::lognormal_distribution<double> slow(std::log(5'000'000.0), 1.5);
  Histogram a;
  Histogram b;
  Histogram all;
  for (int i = 0; i < 50'000; ++i) {
    const uint64_t x = static_cast<uint64_t>(fast(rng));
    const uint64_t y = static_cast<uint64_t>(slow(rng));
    a.record(x);
    b.record(y);
    all.record(x);
    all.record(y);
  }
  b.record(Histogram::kMaxValue * 2);
  all.record(Histogram::kMaxValue * 2);
  a.merge(b);
  EXPECT_EQ(a.to_json(), all.to_json());
  EXPECT_EQ(a.mean(), all.mean());
  for (double q : kQuantiles) EXPECT_EQ(a.percentile(q), all.percentile(q));

  // Merging an empty one changes nothing, in either direction.
  Histogram empty;
  a.merge(empty);
  EXPECT_EQ(a.to_json(), all.to_json());
  empty.merge(all);
  EXPECT_EQ(empty.to_json(), all.to_json());
}

TEST(Histogram, Clear) {
  Histogram h;
  h.record(5);
  h.record(Histogram::kMaxValue + 5);
  h.clear();
  EXPECT_EQ(h.to_json(), Histogram().to_json());
  h.record(9);
  EXPECT_EQ(h.min(), 9u);
  EXPECT_EQ(h.max(), 9u);
}

TEST(Histogram, JsonRoundTrip) {
  std::mt19937_64 rng(6);
  std::exponential_distribution<double> dist(1.0 / 300'000.0);
  Histogram h;
  for (int i = 0; i < 20'000; ++i) h.record(static_cast<uint64_t>(dist(rng)));
  const nlohmann::json j = h.to_json();
  EXPECT_EQ(j.at("count"), 20'000);
  EXPECT_EQ(j.at("min"), h.min());
  EXPECT_EQ(j.at("max"), h.max());
  EXPECT_TRUE(j.at("sum").is_number_integer());
  for (const auto& bucket : j.at("buckets")) EXPECT_GT(bucket.at(1), 0);  // only non-empty ones listed

  Histogram back;
  ASSERT_TRUE(back.from_json(nlohmann::json::parse(j.dump())));
  EXPECT_EQ(back.to_json(), j);
  EXPECT_EQ(back.count(), h.count());
  EXPECT_EQ(back.min(), h.min());
  EXPECT_EQ(back.max(), h.max());
  EXPECT_EQ(back.mean(), h.mean());
  for (double q : kQuantiles) EXPECT_EQ(back.percentile(q), h.percentile(q));
}

TEST(Histogram, FromJsonAcceptsIntegersBuiltInCode) {
  // nlohmann stores literals written in code as signed; they are as valid as parsed (unsigned) ones.
  const nlohmann::json j = {{"count", 2},    {"min", 5},
                            {"max", 7},      {"sum", 12},
                            {"overflow", 0}, {"buckets", {{5, 1}, {7, 1}}}};
  Histogram h;
  ASSERT_TRUE(h.from_json(j));
  EXPECT_EQ(h.count(), 2u);
  EXPECT_EQ(h.percentile(0.5), 5u);
  EXPECT_EQ(h.percentile(1.0), 7u);
  EXPECT_DOUBLE_EQ(h.mean(), 6.0);
}

TEST(Histogram, FromJsonRejectsMalformed) {
  Histogram h;
  h.record(1'000);
  h.record(2'000'000);
  const nlohmann::json good = h.to_json();
  const nlohmann::json before = h.to_json();

  std::vector<std::pair<std::string, nlohmann::json>> bad;
  for (const char* key : {"count", "min", "max", "sum", "overflow", "buckets"}) {
    nlohmann::json j = good;
    j.erase(key);
    bad.emplace_back(std::string("missing ") + key, j);
    j = good;
    j[key] = "12";
    bad.emplace_back(std::string("string ") + key, j);
    j = good;
    j[key] = nullptr;
    bad.emplace_back(std::string("null ") + key, j);
  }
  for (const char* key : {"count", "min", "max", "overflow"}) {
    nlohmann::json j = good;
    j[key] = -1;
    bad.emplace_back(std::string("negative ") + key, j);
    j[key] = 1.5;
    bad.emplace_back(std::string("float ") + key, j);
  }
  auto with_buckets = [&](nlohmann::json buckets) {
    nlohmann::json j = good;
    j["buckets"] = std::move(buckets);
    return j;
  };
  const uint64_t c0 = good["buckets"][0][1];
  bad.emplace_back("negative index", with_buckets({{-1, 1}, good["buckets"][1]}));
  bad.emplace_back("index out of range", with_buckets({{1'000'000, 1}, good["buckets"][1]}));
  bad.emplace_back("huge index", with_buckets({{UINT64_MAX, 1}, good["buckets"][1]}));
  bad.emplace_back("float index", with_buckets({{1.5, c0}, good["buckets"][1]}));
  bad.emplace_back("negative bucket count", with_buckets({{good["buckets"][0][0], -1}, good["buckets"][1]}));
  bad.emplace_back("bucket not a pair", with_buckets({{1, 1, 1}, good["buckets"][1]}));
  bad.emplace_back("bucket not an array", with_buckets({5, good["buckets"][1]}));
  bad.emplace_back("bucket an object", with_buckets({{{"index", 1}}, good["buckets"][1]}));
  bad.emplace_back("buckets an object", with_buckets({{"1", 1}}));
  bad.emplace_back("counts do not add up", with_buckets({good["buckets"][0]}));
  bad.emplace_back("bucket counts wrap", with_buckets({{1, UINT64_MAX}, {2, 3}}));
  {
    nlohmann::json j = good;
    j["overflow"] = 3;
    bad.emplace_back("overflow above count", j);
    j = good;
    j["min"] = 5'000'000;
    bad.emplace_back("min above max", j);
    j = good;
    j["sum"] = -1.0;
    bad.emplace_back("negative sum", j);
  }
  bad.emplace_back("array", nlohmann::json::array({1, 2}));
  bad.emplace_back("number", 5);
  bad.emplace_back("null", nullptr);

  for (const auto& [what, j] : bad) {
    EXPECT_FALSE(h.from_json(j)) << what << ": " << j.dump();
    EXPECT_EQ(h.to_json(), before) << what << " changed the histogram";
  }
  EXPECT_TRUE(h.from_json(good));  // the control: the unmodified form loads
}

}  // namespace
}  // namespace iofab
