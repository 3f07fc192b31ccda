// The live stream's arithmetic (driver/runner/live_frame.h) and its latency tally
// (harness/stats/live_tally.h), on made-up counts.
#include "driver/runner/live_frame.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "harness/stats/live_tally.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

RankTick tick(uint64_t bytes, uint64_t planned, uint64_t ops = 0) {
  RankTick t;
  t.bytes = bytes;
  t.planned = planned;
  t.ops = ops;
  return t;
}

TEST(LiveTally, ABucketsMidpointIsWithinTwoPercentOfItsValues) {
  for (uint64_t v : {0ull, 1ull, 31ull, 32ull, 33ull, 1000ull, 123456ull, 99999999ull, 3600000000000ull}) {
    const uint64_t m = LiveTally::midpoint(LiveTally::bucket_of(v));
    EXPECT_LE(m > v ? m - v : v - m, v / 50 + 1) << v;
  }
  EXPECT_LT(LiveTally::bucket_of(UINT64_MAX), LiveTally::kBuckets);
}

TEST(LiveTally, CountsOnlyWhileEnabledAndBetweenSubtracts) {
  const LiveTally::Snapshot a = LiveTally::snapshot();
  LiveTally::note(5000);  // off: not counted
  LiveTally::set_enabled(true);
  for (int i = 0; i < 99; ++i) LiveTally::note(1000);
  LiveTally::note(1000000);
  LiveTally::set_enabled(false);
  const LiveTally::Snapshot b = LiveTally::snapshot();
  EXPECT_EQ(b.ops - a.ops, 100u);
  const Histogram h = LiveTally::between(a, b);
  EXPECT_EQ(h.count(), 100u);
  EXPECT_NEAR(double(h.percentile(0.5)), 1000, 20);
  EXPECT_NEAR(double(h.percentile(0.999)), 1e6, 2e4);
}

TEST(LiveFrame, TicksMergeAcrossRanksAndIntervalsSubtract) {
  RankTick a = tick(300, 1000, 3), b = tick(100, 1000, 1);
  for (int i = 0; i < 10; ++i) a.interval.record(1000);
  for (int i = 0; i < 90; ++i) b.interval.record(9000);  // percentiles of every I/O, not a mean of ranks'
  const LiveFrame f = merge_ticks({a, b}, {tick(100, 1000, 1), tick(50, 1000, 1)});
  EXPECT_EQ(f.bytes, 400u);
  EXPECT_EQ(f.planned, 2000u);
  EXPECT_EQ(f.interval_bytes, 250u);
  EXPECT_EQ(f.interval_ops, 2u);
  EXPECT_EQ(f.latency.count(), 100u);
  EXPECT_NEAR(double(f.latency.percentile(0.5)), 9000, 100);
  RankTick back =
      tick(0, 0);  // a rank's counters that went back (a decode that failed): no negative interval
  EXPECT_EQ(merge_ticks({back}, {tick(10, 0)}).interval_bytes, 0u);
}

TEST(LiveFrame, ARankBehindTheOthersByTheFactorIsNamed) {
  // Shares of their own plans: rank 2 is at 10% while the others are at 50% and 60%.
  std::vector<LaggingRank> lag = lagging_ranks({tick(500, 1000), tick(600, 1000), tick(100, 1000)}, 2.0);
  ASSERT_EQ(lag.size(), 1u);
  EXPECT_EQ(lag[0].rank, 2);
  EXPECT_NEAR(lag[0].ratio, 0.1 / 0.55, 1e-9);
  // Uneven plans: rank 1 moved fewer bytes but the same share, so it does not lag.
  EXPECT_TRUE(lagging_ranks({tick(500, 1000), tick(50, 100)}, 2.0).empty());
  // Within the factor, one rank, and nothing moved yet: none.
  EXPECT_TRUE(lagging_ranks({tick(500, 1000), tick(300, 1000)}, 2.0).empty());
  EXPECT_TRUE(lagging_ranks({tick(5, 1000)}, 2.0).empty());
  EXPECT_TRUE(lagging_ranks({tick(0, 1000), tick(0, 1000)}, 2.0).empty());
  // The start: the others 4% in, this one not yet: no lag until they pass 5%.
  EXPECT_TRUE(lagging_ranks({tick(40, 1000), tick(0, 1000), tick(40, 1000)}, 2.0).empty());
  EXPECT_EQ(lagging_ranks({tick(60, 1000), tick(0, 1000), tick(60, 1000)}, 2.0).size(), 1u);
}

TEST(LiveFrame, ATickSurvivesTheWireAndGarbageIsRefused) {
  RankTick t = tick(123, 456, 7);
  t.interval.record(777);
  t.done = true;
  RankTick back;
  ASSERT_TRUE(decode_tick(encode_tick(t), &back));
  EXPECT_EQ(back.bytes, 123u);
  EXPECT_EQ(back.planned, 456u);
  EXPECT_EQ(back.ops, 7u);
  EXPECT_EQ(back.interval.count(), 1u);
  EXPECT_TRUE(back.done);
  const std::vector<uint8_t> negative =
      nlohmann::json::to_cbor({{"b", -1}, {"p", 0}, {"o", 0}, {"h", t.interval.to_wire()}, {"d", false}});
  EXPECT_FALSE(decode_tick(std::string(negative.begin(), negative.end()), &back));
  EXPECT_FALSE(decode_tick("not json", &back));
}

// Rank 0 ending first must not end the stream: rank 1's counters from before its end would be the last.
TEST(LiveFrame, TheStreamEndsOnlyOnceEveryRankHasEnded) {
  RankTick ended = tick(100, 100), running = tick(40, 100);
  ended.done = true;
  EXPECT_FALSE(every_rank_done({ended, running}, {true, true}));
  EXPECT_FALSE(every_rank_done({running, ended}, {true, true}));
  EXPECT_TRUE(every_rank_done({ended, ended}, {true, true}));
  // A rank whose tick did not decode cannot say it ended: it does not hold the end up for ever.
  EXPECT_TRUE(every_rank_done({ended, running}, {true, false}));
}

LiveFrame sample_frame() {
  LiveFrame f = merge_ticks({tick(250, 1000, 5), tick(50, 1000, 1)}, {});
  f.run_id = "r\"1";
  f.phase = "ingest";
  f.time = "2026-12-07T12:00:00Z";
  f.elapsed_s = 3;
  f.interval_s = 1;
  f.ranks = f.ranks_reporting = 2;
  f.latency.record(1500);
  return f;
}

TEST(LiveFrame, TheProgressLineHasEveryFigureAndNoControlCodes) {
  const std::string line = progress_text(sample_frame(), 300, 3);
  EXPECT_EQ(line.find('\033'), std::string::npos) << line;
  EXPECT_EQ(line.find('\r'), std::string::npos) << line;
  EXPECT_EQ(line.back(), '\n');
  for (const char* part : {"2026-12-07T12:00:00Z ingest ", "(15.0%)", "so far", "in the last 3", "ETA",
                           "lagging: rank 1 (0.20x the others' median)"}) {
    EXPECT_NE(line.find(part), std::string::npos) << part << " in " << line;
  }
}

TEST(LiveFrame, TheTextfilePassesPromtool) {
  const std::string text = openmetrics_text(sample_frame());
  EXPECT_NE(text.find("iofab_live_done_bytes{run_id=\"r\\\"1\",phase=\"ingest\"} 300\n"), std::string::npos)
      << text;
  if (access("/usr/bin/promtool", X_OK) != 0) GTEST_SKIP() << "promtool not installed (ci/setup installs it)";
  TempDir d;
  write_file(d.path() + "/live.prom", text);
  CommandResult check =
      run_command({"/bin/sh", "-c", "/usr/bin/promtool check metrics < " + d.path() + "/live.prom"});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err << text;
}

}  // namespace
}  // namespace iofab::testing
