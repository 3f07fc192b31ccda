// The sweep driver on 3 in-process ranks (tests/thread_collectives.h): every
// op, out of place and in place, comes back checked and right; nccl-tests'
// 16-byte blocks set the bytes moved; and each timed span holds only the
// collective calls and their marks, never an agreement round, a fill or a
// check.
#include "workloads/collectives/sweep.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <regex>

#include "thread_collectives.h"
#include "workloads/collectives/coll_ops.h"

namespace iofab {
namespace {

using testing::LoggingComm;
using testing::ThreadCollectives;
using testing::ThreadCommHub;

struct RankRun {
  Status status;
  std::vector<SizeSample> samples;
  std::string log;
};

// Runs the sweep on `ranks` threads, each with a control plane and a data plane of its own; rank
// `failing` has its upload number `fail_upload` fail.
std::vector<RankRun> sweep_on_threads(int ranks, const SweepSpec& spec, int failing = -1,
                                      int fail_upload = -1) {
  std::vector<RankRun> runs(static_cast<size_t>(ranks));
  ThreadCommHub data(ranks);
  std::atomic<bool> stop{false};
  testing::run_ranks(ranks, [&](Comm& control) {
    RankRun& mine = runs[static_cast<size_t>(control.rank())];
    ThreadCollectives coll(data, control.rank(), ranks);
    if (control.rank() == failing) coll.uploads_left_ok = fail_upload;
    LoggingComm logged(control, &coll.log);
    mine.status = run_sweep(coll, logged, spec, stop, nullptr, &mine.samples);
    mine.log = coll.log;
  });
  return runs;
}

SweepSpec spec_of(std::vector<std::string_view> ops) {
  SweepSpec spec;
  for (auto name : ops) spec.ops.push_back(coll_op(name));
  spec.min_bytes = 1024;
  spec.max_bytes = 4096;
  spec.factor = 4;
  spec.iters = 3;
  spec.warmup = 1;
  spec.root = 1;
  return spec;
}

TEST(SweepDriver, EveryOpAndPlacementIsRightOnThreeRanks) {
  std::vector<std::string_view> names;
  for (const auto& info : coll_op_table()) names.push_back(info.name);
  for (DType t : {DType::kFloat32, DType::kBFloat16, DType::kInt32}) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    SweepSpec spec = spec_of(names);
    spec.dtype = t;
    const auto runs = sweep_on_threads(3, spec);
    for (int r = 0; r < 3; ++r) {
      const RankRun& run = runs[static_cast<size_t>(r)];
      ASSERT_TRUE(run.status.ok()) << run.status.message();
      size_t want = 0;
      for (CollOp op : spec.ops) want += 2 * sweep_placements(spec, *op).size();  // 1 KiB and 4 KiB
      ASSERT_EQ(run.samples.size(), want);
      for (const SizeSample& s : run.samples) {
        SCOPED_TRACE(std::string(coll_op_name(s.op)) + (s.in_place ? " in place " : " ") +
                     std::to_string(s.size));
        EXPECT_TRUE(s.checked);
        EXPECT_EQ(s.wrong, 0u) << "rank " << r;
        EXPECT_EQ(s.iter_seconds.size(), 3u);
      }
    }
  }
}

TEST(SweepDriver, EveryReductionOperatorOnThreeRanks) {
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kInt64, DType::kFloat16, DType::kFloat8E4M3}) {
    for (RedOp op : {RedOp::kSum, RedOp::kProd, RedOp::kMin, RedOp::kMax, RedOp::kAvg}) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " " + std::string(redop_name(op)));
      SweepSpec spec = spec_of({"all_reduce", "reduce_scatter", "reduce"});
      spec.dtype = t;
      spec.redop = op;
      spec.max_bytes = 1024;
      const auto runs = sweep_on_threads(3, spec);
      for (const RankRun& run : runs) {
        ASSERT_TRUE(run.status.ok()) << run.status.message();
        ASSERT_EQ(run.samples.size(), 6u);  // 3 ops x 2 placements
        for (const SizeSample& s : run.samples) {
          EXPECT_TRUE(s.checked);
          EXPECT_EQ(s.wrong, 0u) << coll_op_name(s.op) << (s.in_place ? " in place" : "");
        }
      }
    }
  }
}

TEST(SweepDriver, InPlaceWhereTheOpHasIt) {
  const SweepSpec spec = spec_of({"all_reduce"});
  std::map<std::string_view, std::vector<bool>> want = {
      {"all_reduce", {false, true}}, {"all_gather", {false, true}}, {"reduce_scatter", {false, true}},
      {"reduce", {false, true}},     {"broadcast", {true}},         {"all_to_all", {false}},
      {"gather", {false}},           {"scatter", {false}},          {"sendrecv", {false}}};
  for (const auto& [op, places] : want) EXPECT_EQ(sweep_placements(spec, *coll_op(op)), places) << op;
  SweepSpec only_out = spec;
  only_out.in_place = false;
  EXPECT_EQ(sweep_placements(only_out, *coll_op("all_reduce")), std::vector<bool>{false});
  // An op with one placement runs in it whatever the suite asks.
  EXPECT_EQ(sweep_placements(only_out, *coll_op("broadcast")), std::vector<bool>{true});
}

TEST(SweepDriver, BlocksAreWhole16ByteLinesAsNcclTestsMovesThem) {
  // 3 ranks, 1 KiB of float32: nccl-tests moves 3 x 84 elements = 1008 bytes.
  SweepSpec spec = spec_of({"all_gather", "reduce_scatter", "all_to_all"});
  spec.max_bytes = 1024;
  const auto runs = sweep_on_threads(3, spec);
  ASSERT_TRUE(runs[0].status.ok()) << runs[0].status.message();
  for (const SizeSample& s : runs[0].samples) {
    EXPECT_EQ(s.bytes, 1008u) << coll_op_name(s.op);
    EXPECT_EQ(s.count, 84u) << coll_op_name(s.op);
    EXPECT_EQ(s.wrong, 0u) << coll_op_name(s.op);
  }
}

TEST(SweepDriver, TimedSpansHoldOnlyTheCalls) {
  SweepSpec spec = spec_of({"all_reduce", "gather"});
  spec.iters = 4;
  const auto runs = sweep_on_threads(3, spec);
  for (const RankRun& run : runs) {
    ASSERT_TRUE(run.status.ok()) << run.status.message();
    // Each timed block: a mark, then (call, mark) per iteration. Anything else between a block's first
    // mark and its last (an agreement round A, an upload U, a download D) would be timed.
    const std::string block = "M" + std::string("CM") + "CM" + "CM" + "CM";
    size_t blocks = 0;
    for (size_t at = run.log.find('M'); at != std::string::npos; at = run.log.find('M', at + block.size())) {
      EXPECT_EQ(run.log.substr(at, block.size()), block) << "at " << at << " in " << run.log;
      // Then the ranks wait for each other before the check's fill and upload ("U"), so no rank's
      // work after its last call takes a shared core from a rank still in that call.
      EXPECT_EQ(run.log.substr(at + block.size(), 1), "A") << "at " << at << " in " << run.log;
      ++blocks;
    }
    EXPECT_EQ(blocks, 2u * 2 + 2u * 1);  // all_reduce: 2 sizes x 2 placements; gather: 2 sizes x 1
    // The warm-up calls come right before each block, after the agreement: "A" then "C" then "M...".
    EXPECT_NE(run.log.find("ACM"), std::string::npos) << run.log;
  }
}

// A long run goes in chunks with a stop check (agreement rounds, "A") between them. A chunk after
// one starts with an untimed call when it has 8 calls or more, so no rank's first timed call waits
// out the others leaving the check; a shorter chunk does without, so big calls are not doubled.
std::string timed_run_of(int iters, int stop_check_calls) {
  SweepSpec spec = spec_of({"all_reduce"});
  spec.min_bytes = spec.max_bytes = 1024;
  spec.in_place = false;
  spec.check = false;
  spec.iters = iters;
  spec.stop_check_calls = stop_check_calls;
  const auto runs = sweep_on_threads(3, spec);
  std::string out;
  for (const RankRun& run : runs) {
    EXPECT_TRUE(run.status.ok()) << run.status.message();
    EXPECT_EQ(run.samples.size(), 1u);
    if (!run.samples.empty()) {
      EXPECT_EQ(run.samples[0].iter_seconds.size(), static_cast<size_t>(iters));
    }
    // One "A" per agreement, however many control-plane rounds it takes.
    const std::string log = std::regex_replace(run.log, std::regex("A+"), "A");
    const std::string timed = log.substr(std::min(log.size(), log.find('M')));
    if (!out.empty()) {
      EXPECT_EQ(timed, out) << "every rank cuts the same chunks";
    }
    out = timed;
  }
  return out;
}

std::string calls(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "CM";
  return s;
}

TEST(SweepDriver, AChunkAfterAStopCheckStartsWithAnUntimedCall) {
  // 20 calls in chunks of 8: 8, settle, 8, settle, 4; then the end of the sweep's agreement.
  EXPECT_EQ(timed_run_of(20, 8),
            "M" + calls(8) + "A" + "C" + "M" + calls(8) + "A" + "C" + "M" + calls(4) + "A");
}

TEST(SweepDriver, ShortChunksGoWithoutTheUntimedCall) {
  EXPECT_EQ(timed_run_of(10, 4), "M" + calls(4) + "A" + "M" + calls(4) + "A" + "M" + calls(2) + "A");
}

TEST(SweepDriver, AFailedFillOnOneRankStopsEveryRankAtTheCheck) {
  // Rank 2's third upload (the 1 KiB in-place check's) fails: every rank leaves the sweep with an error,
  // none waits in a collective the others never join.
  const auto runs = sweep_on_threads(3, spec_of({"all_reduce"}), 2, 2);
  for (int r = 0; r < 3; ++r) {
    const Status& s = runs[static_cast<size_t>(r)].status;
    ASSERT_FALSE(s.ok()) << "rank " << r;
    if (r == 2) {
      EXPECT_EQ(s.message(), "injected upload failure");
    } else {
      EXPECT_EQ(s.message(), "rank 2 failed") << "rank " << r;
    }
  }
}

}  // namespace
}  // namespace iofab
