// FSDP FULL_SHARD's schedule: all-gather before forward and before
// backward, reduce-scatter after backward, prefetch; and its bytes: 1.5x DDP's.
#include "workloads/collectives/fsdp_schedule.h"

#include <gtest/gtest.h>

#include "workloads/collectives/ddp_schedule.h"

namespace iofab {
namespace {

std::string order(const StepSchedule& s) {
  std::string out;
  for (const auto& t : s.comm) {
    out += (out.empty() ? "" : " ") + std::string(t.kind == StepTaskKind::kAllGather ? "AG" : "RS") +
           std::to_string(t.layer);
  }
  return out;
}

TEST(FsdpStep, PrefetchOrderAndDependencies) {
  ModelSpec m{1200, 3, DType::kBFloat16, DType::kBFloat16};
  FsdpOptions o;
  const StepSchedule s = fsdp_step(m, o, 4);
  EXPECT_EQ(order(s), "AG0 AG1 AG2 AG2 AG1 AG0 RS2 RS1 RS0");
  ASSERT_EQ(s.comm.size(), 9u);  // 3 per layer
  // Layer 1's gather goes out before layer 0 computes; layer 2's once layer 0 is done.
  EXPECT_EQ(s.comm[1].after, -1);
  EXPECT_EQ(s.comm[2].after, 0);
  // Backward: layer 0's gather is prefetched ahead of layer 2's reduce-scatter.
  EXPECT_EQ(s.comm[5].after, 3);  // after backward of layer 2
  EXPECT_EQ(s.comm[6].after, 3);
  // Each layer computes after its own gather.
  const int expect_after[] = {0, 1, 2, 3, 4, 5};
  for (size_t i = 0; i < s.compute.size(); ++i) EXPECT_EQ(s.compute[i].after, expect_after[i]) << i;
  for (const auto& t : s.comm) {
    EXPECT_EQ(t.count, 100u);  // each rank's shard of a 400-element layer
    EXPECT_EQ(t.bytes, 800u);  // the full layer in bfloat16
  }
}

TEST(FsdpStep, WithoutPrefetchEachGatherWaitsForThePreviousLayer) {
  ModelSpec m{1200, 3, DType::kBFloat16, DType::kBFloat16};
  FsdpOptions o;
  o.prefetch = false;
  const StepSchedule s = fsdp_step(m, o, 4);
  EXPECT_EQ(order(s), "AG0 AG1 AG2 AG2 RS2 AG1 RS1 AG0 RS0");
  EXPECT_EQ(s.comm[1].after, 0);  // after forward of layer 0
  EXPECT_EQ(s.comm[2].after, 1);
}

TEST(FsdpStep, PrefetchHidesGathersBehindCompute) {
  ModelSpec m{1200, 3, DType::kBFloat16, DType::kBFloat16};
  FsdpOptions o;
  o.forward_s = 1e-3;
  o.backward_s = 2e-3;
  const auto ms = [](const StepTask&) { return 1e-3; };
  StepTiming with, without;
  ASSERT_TRUE(simulate_step(fsdp_step(m, o, 4), ms, &with));
  o.prefetch = false;
  ASSERT_TRUE(simulate_step(fsdp_step(m, o, 4), ms, &without));
  EXPECT_NEAR(without.step_s, 18e-3, 1e-12);  // every collective in series with compute
  EXPECT_NEAR(with.step_s, 12e-3, 1e-12);
  EXPECT_NEAR(with.compute_s, 9e-3, 1e-12);
  EXPECT_NEAR(with.comm_s, 9e-3, 1e-12);
}

TEST(FsdpStep, EveryLayerCountRunsToTheEnd) {
  for (int layers : {1, 2, 3, 5, 64}) {
    for (bool prefetch : {true, false}) {
      ModelSpec m{static_cast<uint64_t>(layers) * 1000, layers, DType::kBFloat16, DType::kFloat32};
      FsdpOptions o;
      o.prefetch = prefetch;
      o.forward_s = 1e-3;
      const StepSchedule s = fsdp_step(m, o, 8);
      EXPECT_EQ(s.comm.size(), 3u * static_cast<size_t>(layers));
      StepTiming t;
      EXPECT_TRUE(simulate_step(
          s, [](const StepTask&) { return 1e-4; }, &t))
          << layers << " " << prefetch;
    }
  }
}

TEST(FsdpStep, BytesAreOneAndAHalfTimesDdpWithOneDtype) {
  for (int n : {2, 4, 8}) {
    ModelSpec m{8 * 3 * 1000, 3, DType::kBFloat16, DType::kBFloat16};  // layers divide by every n
    const double fsdp = schedule_bytes_per_rank(fsdp_step(m, FsdpOptions{}, n), n);
    const double ddp = schedule_bytes_per_rank(ddp_step(m, DdpOptions{}), n);
    EXPECT_DOUBLE_EQ(fsdp / ddp, 1.5) << n;
    EXPECT_DOUBLE_EQ(fsdp, fsdp_bytes_per_rank_analytic(m, n));
    EXPECT_DOUBLE_EQ(fsdp_bytes_per_rank_analytic(m, n) / ddp_bytes_per_rank_analytic(m, n), 1.5);
  }
  // bfloat16 params, float32 gradients: (2*2 + 4) / (2*4) = 1.
  ModelSpec mixed{4000, 4, DType::kBFloat16, DType::kFloat32};
  EXPECT_DOUBLE_EQ(fsdp_bytes_per_rank_analytic(mixed, 4) / ddp_bytes_per_rank_analytic(mixed, 4), 1.0);
}

TEST(FsdpStep, LayersArePaddedToAMultipleOfRanks) {
  ModelSpec m{1201, 3, DType::kFloat32, DType::kFloat32};
  EXPECT_EQ(layer_params(m), (std::vector<uint64_t>{401, 400, 400}));
  const auto shards = fsdp_shards(layer_params(m), 4);
  EXPECT_EQ(shards[0].padded, 404u);
  EXPECT_EQ(shards[0].shard, 101u);
  EXPECT_EQ(shards[1].padded, 400u);
  // Padding is sent too: issued bytes exceed the formula's by the pad.
  const double issued = schedule_bytes_per_rank(fsdp_step(m, FsdpOptions{}, 4), 4);
  EXPECT_DOUBLE_EQ(issued - fsdp_bytes_per_rank_analytic(m, 4), 0.75 * 3 * 4 * 3);
  uint64_t send = 0, recv = 0;
  schedule_buffer_bytes(fsdp_step(m, FsdpOptions{}, 4), 4, &send, &recv);
  EXPECT_EQ(send, 404u * 4);  // reduce-scatter input: the full layer
  EXPECT_EQ(recv, 404u * 4);  // all-gather output: the full layer
}

}  // namespace
}  // namespace iofab
