// Sweep sizes and the per-size figures merged from every rank's samples.
#include "workloads/collectives/sweep_stats.h"

#include <gtest/gtest.h>

namespace iofab {
namespace {

TEST(SweepSizes, DoublesFromMinToMax) {
  EXPECT_EQ(sweep_sizes(1024, 8192, 2), (std::vector<uint64_t>{1024, 2048, 4096, 8192}));
  // Like nccl-tests, max is included only when the steps land on it.
  EXPECT_EQ(sweep_sizes(1000, 5000, 2), (std::vector<uint64_t>{1000, 2000, 4000}));
  EXPECT_EQ(sweep_sizes(64, 64, 2), (std::vector<uint64_t>{64}));
  EXPECT_EQ(sweep_sizes(1, 4, 1.1), (std::vector<uint64_t>{1, 2, 3, 4}));  // at least one byte per step
  EXPECT_TRUE(sweep_sizes(10, 5, 2).empty());
}

TEST(SweepStats, Percentile) {
  EXPECT_EQ(percentile({}, 0.5), 0);
  EXPECT_EQ(percentile({3, 1, 2}, 0.5), 2);
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  EXPECT_EQ(percentile(v, 0.99), 99);
  EXPECT_EQ(percentile(v, 0.50), 50);
  EXPECT_EQ(percentile(v, 1.0), 100);
}

SizeSample sample(CollOp op, uint64_t bytes, std::vector<double> iters, uint64_t wrong = 0) {
  SizeSample s;
  s.op = op;
  s.size = bytes;
  s.bytes = bytes;
  s.count = bytes / 4;
  s.iter_seconds = iters;
  for (double x : iters) s.total_seconds += x;
  s.checked = true;
  s.wrong = wrong;
  return s;
}

TEST(SweepStats, SlowestRankPerIterationAndPerMean) {
  // Rank 1 is slower on average; rank 0 has the one slow iteration.
  std::vector<std::vector<SizeSample>> ranks = {
      {sample(coll_op("all_gather"), 1 << 20, {1e-3, 1e-3, 5e-3, 1e-3})},
      {sample(coll_op("all_gather"), 1 << 20, {2e-3, 2e-3, 2e-3, 2e-3}, 3)},
  };
  std::vector<SizeStats> out;
  ASSERT_TRUE(merge_sweep(ranks, TimeAcrossRanks::kMax, &out));
  ASSERT_EQ(out.size(), 1u);
  const SizeStats& s = out[0];
  EXPECT_TRUE(s.ran);
  EXPECT_DOUBLE_EQ(s.mean_s, 2e-3);  // rank 1's mean (rank 0's is 2e-3 too: 8 ms / 4)
  EXPECT_DOUBLE_EQ(s.p50_s, 2e-3);   // per iteration max: 2, 2, 5, 2 ms
  EXPECT_DOUBLE_EQ(s.p99_s, 5e-3);
  EXPECT_DOUBLE_EQ(s.algbw, (1 << 20) / 2e-3);
  EXPECT_DOUBLE_EQ(s.busbw / s.algbw, 0.5);  // all_gather on 2 ranks: (n-1)/n
  EXPECT_EQ(s.wrong, 3u);
  EXPECT_TRUE(s.checked);
  EXPECT_EQ(s.rank_mean_s.size(), 2u);
}

TEST(SweepStats, SkewAndFactorsAcrossOps) {
  std::vector<std::vector<SizeSample>> ranks(4);
  const CollOp ops[] = {coll_op("all_reduce"), coll_op("reduce_scatter"), coll_op("broadcast"),
                        coll_op("all_to_all")};
  for (int r = 0; r < 4; ++r) {
    for (CollOp op : ops)
      ranks[static_cast<size_t>(r)].push_back(sample(op, 4096, {1e-4 * (r + 1), 1e-4 * (r + 1)}));
  }
  std::vector<SizeStats> out;
  ASSERT_TRUE(merge_sweep(ranks, TimeAcrossRanks::kMax, &out));
  ASSERT_EQ(out.size(), 4u);
  for (const auto& s : out) {
    EXPECT_DOUBLE_EQ(s.mean_s, 4e-4);
    EXPECT_NEAR(s.skew, 0.75, 1e-12);  // (4 - 1) / 4
    EXPECT_NEAR(s.busbw / s.algbw, bus_factor(s.op, 4), 1e-12) << coll_op_name(s.op);
  }
}

TEST(SweepStats, TooSmallSizesAndDisagreement) {
  SizeSample skipped;
  skipped.op = coll_op("all_to_all");
  skipped.size = 2;
  std::vector<std::vector<SizeSample>> ranks = {{skipped}, {skipped}};
  std::vector<SizeStats> out;
  ASSERT_TRUE(merge_sweep(ranks, TimeAcrossRanks::kMax, &out));
  EXPECT_FALSE(out[0].ran);
  EXPECT_FALSE(out[0].to_json().contains("busbw"));
  // Ranks that ran different sizes are a bug, not a figure.
  ranks[1][0].size = 4;
  EXPECT_FALSE(merge_sweep(ranks, TimeAcrossRanks::kMax, &out));
  ranks = {{sample(coll_op("all_reduce"), 8, {1})}, {}};
  EXPECT_FALSE(merge_sweep(ranks, TimeAcrossRanks::kMax, &out));
}

TEST(SweepStats, EachTimeDefinitionOverHandMadeRankTimes) {
  // 3 ranks, 2 iterations each: means 1, 2 and 6 ms. nccl-tests' -a 0..3 take rank 0's, the mean,
  // the fastest and the slowest.
  std::vector<std::vector<SizeSample>> ranks = {
      {sample(coll_op("all_reduce"), 3072, {1e-3, 1e-3})},
      {sample(coll_op("all_reduce"), 3072, {1e-3, 3e-3})},
      {sample(coll_op("all_reduce"), 3072, {4e-3, 8e-3})},
  };
  const struct {
    TimeAcrossRanks how;
    double mean, p99;  // p99 over 2 iterations is the larger iteration's combined time
  } cases[] = {{TimeAcrossRanks::kRank0, 1e-3, 1e-3},
               {TimeAcrossRanks::kAvg, 3e-3, 4e-3},  // (1 + 2 + 6) / 3; iteration 2: (1 + 3 + 8) / 3
               {TimeAcrossRanks::kMin, 1e-3, 1e-3},
               {TimeAcrossRanks::kMax, 6e-3, 8e-3}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(time_across_ranks_name(c.how)));
    std::vector<SizeStats> out;
    ASSERT_TRUE(merge_sweep(ranks, c.how, &out));
    EXPECT_NEAR(out[0].mean_s, c.mean, 1e-15);
    EXPECT_NEAR(out[0].p99_s, c.p99, 1e-15);
    EXPECT_NEAR(out[0].algbw, 3072 / c.mean, 1e-6);
    EXPECT_EQ(out[0].to_json()["time_across_ranks"], time_across_ranks_name(c.how));
    EXPECT_NEAR(out[0].to_json()["time_us"].get<double>(), c.mean * 1e6, 1e-9);
    EXPECT_NEAR(out[0].skew, 5.0 / 6.0, 1e-12);  // skew is the same under every definition
  }
  EXPECT_EQ(combine_across_ranks(TimeAcrossRanks::kAvg, {}), 0);
  for (const char* name : {"rank0", "avg", "min", "max"}) {
    ASSERT_TRUE(parse_time_across_ranks(name)) << name;
    EXPECT_EQ(time_across_ranks_name(*parse_time_across_ranks(name)), name);
  }
  EXPECT_FALSE(parse_time_across_ranks("mean"));
  // The numbers are nccl-tests' -a values.
  EXPECT_EQ(static_cast<int>(TimeAcrossRanks::kAvg), 1);
  EXPECT_EQ(static_cast<int>(TimeAcrossRanks::kMax), 3);
}

TEST(SweepStats, SampleJsonRoundTrip) {
  SizeSample s = sample(coll_op("reduce_scatter"), 65536, {1.5e-6, 2.25e-6}, 7);
  s.in_place = true;
  SizeSample back;
  ASSERT_TRUE(SizeSample::from_json(s.to_wire(), &back));
  EXPECT_EQ(back.op, coll_op("reduce_scatter"));
  EXPECT_EQ(back.bytes, 65536u);
  EXPECT_EQ(back.wrong, 7u);
  EXPECT_TRUE(back.in_place);
  ASSERT_EQ(back.iter_seconds.size(), 2u);
  EXPECT_NEAR(back.iter_seconds[1], 2.25e-6, 1e-9);
  EXPECT_FALSE(
      SizeSample::from_json(nlohmann::json{{"op", "nope"}, {"iter_ns", nlohmann::json::array()}}, &back));
}

// Found by fuzz/wire_fuzz (its corpus keeps the input): a field of the wrong type from a rank threw
// nlohmann's type_error out of the read and ended rank 0.
TEST(SizeSampleWire, AFieldOfTheWrongTypeIsARefusalNotAnException) {
  const nlohmann::json good = {
      {"op", "all_reduce"}, {"size", 65536},     {"bytes", 65536},
      {"count", 16384},     {"in_place", false}, {"iter_ns", nlohmann::json::array({1000, 2000})},
      {"total_ns", 3000},   {"checked", true},   {"wrong", 0}};
  SizeSample back;
  ASSERT_TRUE(SizeSample::from_json(good, &back));
  for (const char* key : {"size", "bytes", "count", "in_place", "total_ns", "checked", "wrong"}) {
    nlohmann::json bad = good;
    bad[key] = key == std::string("in_place") || key == std::string("checked") ? nlohmann::json(3)
                                                                               : nlohmann::json(true);
    SizeSample untouched;
    untouched.size = 77;
    bool ok = true;
    EXPECT_NO_THROW(ok = SizeSample::from_json(bad, &untouched)) << key;
    EXPECT_FALSE(ok) << key;
    EXPECT_EQ(untouched.size, 77u) << key;
  }
}

}  // namespace
}  // namespace iofab
