// The phase's public metric names and values, from synthetic rank data.
#include "workloads/collectives/results.h"

#include <gtest/gtest.h>

#include "workloads/collectives/ddp_schedule.h"
#include "workloads/collectives/fsdp_schedule.h"
#include "workloads/collectives/collectives_phase.h"

namespace iofab {
namespace {

SizeSample sample(CollOp op, uint64_t size, double each, uint64_t wrong) {
  SizeSample s;
  s.op = op;
  s.size = size;
  s.bytes = size;
  s.iter_seconds = {each, each};
  s.total_seconds = 2 * each;
  s.checked = true;
  s.wrong = wrong;
  return s;
}

// One rank (NCCL on one GPU, as nccl-tests runs): algbw is the GPU's own, busbw is 0 wherever the bus
// factor is (n-1)-based, and the report says each op's factor.
TEST(CollectivesResults, OneRankSaysItsBusFactorIsZero) {
  SweepSpec spec;
  spec.ops = {coll_op("all_reduce"), coll_op("all_gather"), coll_op("broadcast")};
  std::vector<std::vector<SizeSample>> ranks(1);
  ranks[0] = {sample(coll_op("all_reduce"), 4096, 1e-5, 0), sample(coll_op("all_gather"), 4096, 1e-5, 0),
              sample(coll_op("broadcast"), 4096, 1e-5, 0)};
  PhaseResult res;
  ASSERT_TRUE(add_sweep_results(ranks, spec, &res));
  const auto& m = res.metrics;
  EXPECT_DOUBLE_EQ(m.at("algbw.all_reduce.4096"), 4096 / 1e-5);
  EXPECT_EQ(m.at("busbw.all_reduce.max"), 0);
  EXPECT_EQ(m.at("busbw.all_gather.max"), 0);
  EXPECT_DOUBLE_EQ(m.at("busbw.broadcast.max"), m.at("algbw.broadcast.max"));
  EXPECT_EQ(m.at("wrong_elements"), 0);
  const auto& f = res.details["sweep"]["bus_factor"];
  EXPECT_EQ(f["all_reduce"], 0.0);
  EXPECT_EQ(f["all_gather"], 0.0);
  EXPECT_EQ(f["broadcast"], 1.0);
}

TEST(CollectivesResults, SweepMetricsByOpAndSize) {
  SweepSpec spec;
  spec.ops = {coll_op("all_reduce"), coll_op("all_gather")};
  std::vector<std::vector<SizeSample>> ranks(4);
  for (auto& r : ranks) {
    r = {sample(coll_op("all_reduce"), 1024, 1e-5, 0), sample(coll_op("all_reduce"), 4096, 2e-5, 0),
         sample(coll_op("all_gather"), 1024, 1e-5, 1)};
  }
  PhaseResult res;
  ASSERT_TRUE(add_sweep_results(ranks, spec, &res));
  const auto& m = res.metrics;
  ASSERT_TRUE(m.count("busbw.all_reduce.1024"));
  ASSERT_TRUE(m.count("algbw.all_reduce.4096"));
  EXPECT_DOUBLE_EQ(m.at("algbw.all_reduce.1024"), 1024 / 1e-5);
  EXPECT_DOUBLE_EQ(m.at("busbw.all_reduce.4096") / m.at("algbw.all_reduce.4096"), 1.5);  // 2(n-1)/n, n = 4
  EXPECT_DOUBLE_EQ(m.at("busbw.all_gather.1024") / m.at("algbw.all_gather.1024"), 0.75);
  EXPECT_DOUBLE_EQ(m.at("busbw.all_reduce.max"), m.at("busbw.all_reduce.4096"));
  EXPECT_DOUBLE_EQ(m.at("algbw.all_gather.max"), m.at("algbw.all_gather.1024"));
  EXPECT_EQ(m.at("wrong_elements"), 4);  // one per rank
  EXPECT_EQ(res.warnings.size(), 1u);
  EXPECT_EQ(res.details["sweep"]["sizes"].size(), 3u);
  EXPECT_EQ(res.details["sweep"]["time_across_ranks"], "avg");
  // nccl-tests' "Avg bus bandwidth": the mean over the op's sizes.
  EXPECT_DOUBLE_EQ(m.at("busbw.all_reduce.avg"),
                   (m.at("busbw.all_reduce.1024") + m.at("busbw.all_reduce.4096")) / 2);
  // Every metric the phase produces is one its kind declares, so checks can name it.
  for (const auto& [name, v] : m) {
    bool declared = false;
    for (const auto& info : collectives_metrics()) {
      declared = declared || info.name == name ||
                 (info.name.ends_with(".*") && name.starts_with(info.name.substr(0, info.name.size() - 1)));
    }
    EXPECT_TRUE(declared) << name;
  }
}

TEST(CollectivesResults, InPlaceBesideOutOfPlaceAndInTheAverage) {
  SweepSpec spec;
  spec.ops = {coll_op("all_reduce"), coll_op("broadcast")};
  std::vector<std::vector<SizeSample>> ranks(2);
  for (auto& r : ranks) {
    SizeSample in = sample(coll_op("all_reduce"), 1024, 4e-5, 0);
    in.in_place = true;
    SizeSample bcast = sample(coll_op("broadcast"), 1024, 1e-5, 0);
    bcast.in_place = true;  // broadcast's one placement
    r = {sample(coll_op("all_reduce"), 1024, 1e-5, 0), in, bcast};
  }
  PhaseResult res;
  ASSERT_TRUE(add_sweep_results(ranks, spec, &res));
  const auto& m = res.metrics;
  EXPECT_DOUBLE_EQ(m.at("algbw.all_reduce.1024"), 1024 / 1e-5);
  EXPECT_DOUBLE_EQ(m.at("algbw.all_reduce.in_place.1024"), 1024 / 4e-5);
  EXPECT_DOUBLE_EQ(m.at("busbw.all_reduce.avg"),
                   (m.at("busbw.all_reduce.1024") + m.at("busbw.all_reduce.in_place.1024")) / 2);
  // An op with one placement keeps the plain names.
  EXPECT_TRUE(m.count("busbw.broadcast.1024"));
  EXPECT_FALSE(m.count("busbw.broadcast.in_place.1024"));
  const auto& sizes = res.details["sweep"]["sizes"];
  ASSERT_EQ(sizes.size(), 2u);  // the in-place run sits inside its size's entry
  EXPECT_NEAR(sizes[0]["in_place"]["time_us"].get<double>(), 40, 1e-9);
  EXPECT_NEAR(sizes[0]["time_us"].get<double>(), 10, 1e-9);
}

TEST(CollectivesResults, StepMetricsAndRatios) {
  ModelSpec model{8000, 4, DType::kBFloat16, DType::kBFloat16};
  const StepSchedule ddp = ddp_step(model, DdpOptions{});
  const StepSchedule fsdp = fsdp_step(model, FsdpOptions{}, 2);
  // Rank 1 is the slower rank in step 0, rank 0 in step 1.
  std::vector<std::vector<StepTiming>> ddp_t = {{{1.0, 0.6, 0.5}, {2.0, 0.6, 1.5}},
                                                {{1.2, 0.6, 0.7}, {1.0, 0.6, 0.4}}};
  std::vector<std::vector<StepTiming>> fsdp_t = {{{2.0, 0.6, 1.8}, {2.0, 0.6, 1.8}},
                                                 {{2.0, 0.6, 1.8}, {2.0, 0.6, 1.8}}};
  PhaseResult res;
  add_step_results("ddp", ddp, ddp_bytes_per_rank_analytic(model, 2), 2, ddp_t, &res);
  add_step_results("fsdp", fsdp, fsdp_bytes_per_rank_analytic(model, 2), 2, fsdp_t, &res);
  add_ratios(&res);
  const auto& m = res.metrics;
  EXPECT_DOUBLE_EQ(m.at("ddp.step_seconds"), 1.6);  // slowest per step: 1.2, 2.0
  EXPECT_DOUBLE_EQ(m.at("ddp.comm_seconds"), 1.1);  // that rank's comm: 0.7, 1.5
  EXPECT_DOUBLE_EQ(m.at("ddp.compute_seconds"), 0.6);
  EXPECT_DOUBLE_EQ(m.at("ddp.exposed_comm_seconds"), 1.0);
  EXPECT_DOUBLE_EQ(m.at("exposed_comm_fraction.ddp"), 1.0 / 1.6);
  EXPECT_DOUBLE_EQ(m.at("exposed_comm_fraction.fsdp"), 0.7);
  EXPECT_DOUBLE_EQ(m.at("ddp.bytes_per_rank"), 8000 * 2);  // 2(n-1)/n = 1 on 2 ranks
  EXPECT_DOUBLE_EQ(m.at("fsdp.bytes_per_rank"), 8000 * 6 / 2);
  EXPECT_DOUBLE_EQ(m.at("fsdp_ddp_bytes_ratio"), 1.5);
  EXPECT_DOUBLE_EQ(m.at("fsdp_ddp_step_ratio"), 2.0 / 1.6);
  EXPECT_DOUBLE_EQ(m.at("fsdp.collectives"), 12);
  EXPECT_EQ(res.details["ddp"]["step_seconds_per_step"].size(), 2u);
}

}  // namespace
}  // namespace iofab
