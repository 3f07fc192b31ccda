// DDP's bucket schedule: PyTorch's bucket sizes, first bucket, reverse layer
// order, and the overlap of all-reduce with backward.
#include "workloads/collectives/ddp_schedule.h"

#include <gtest/gtest.h>

#include <numeric>

namespace iofab {
namespace {

TEST(DdpBuckets, FirstBucketSmallThenCapInReverseLayerOrder) {
  // 4 layers of 10 MiB of bfloat16 gradients (5 Mi elements each).
  const uint64_t mi = 1 << 20;
  const std::vector<uint64_t> layers(4, 5 * mi);
  const auto b = ddp_buckets(layers, DType::kBFloat16, 1 << 20, 25 << 20);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].elements, mi / 2);  // 1 MiB
  EXPECT_EQ(b[0].first_layer, 3);    // the last layer's gradients come first
  EXPECT_EQ(b[0].ready_layer, 3);
  EXPECT_EQ(b[1].elements, 25 * mi / 2);  // 25 MiB: the rest of layer 3, all of 2, part of 1
  EXPECT_EQ(b[1].first_layer, 3);
  EXPECT_EQ(b[1].ready_layer, 1);
  EXPECT_EQ(b[2].elements, 7 * mi);  // what is left
  EXPECT_EQ(b[2].first_layer, 1);
  EXPECT_EQ(b[2].ready_layer, 0);
}

TEST(DdpBuckets, DefaultModelCountAndTotal) {
  ModelSpec m{125'000'000, 12, DType::kBFloat16, DType::kBFloat16};
  std::vector<DdpBucket> b;
  const StepSchedule s = ddp_step(m, DdpOptions{}, &b);
  // 250e6 bytes: a 1 MiB bucket, then ceil((250e6 - 1 MiB) / 25 MiB) = 10 more.
  ASSERT_EQ(b.size(), 11u);
  EXPECT_EQ(b[0].elements * 2, 1u << 20);
  for (size_t i = 1; i + 1 < b.size(); ++i) EXPECT_EQ(b[i].elements * 2, 25u << 20) << i;
  const uint64_t total = std::accumulate(b.begin(), b.end(), uint64_t{0},
                                         [](uint64_t a, const DdpBucket& x) { return a + x.elements; });
  EXPECT_EQ(total, m.params);
  // Ready layers never go up: buckets leave in the order backward fills them.
  for (size_t i = 1; i < b.size(); ++i) EXPECT_LE(b[i].ready_layer, b[i - 1].ready_layer);
  EXPECT_EQ(s.comm.size(), b.size());
  for (const auto& t : s.comm) EXPECT_EQ(t.kind, StepTaskKind::kAllReduce);
}

TEST(DdpBuckets, SmallLayersShareABucketAndTinyCapsStillProgress) {
  const auto b = ddp_buckets({10, 10, 10}, DType::kFloat32, 1 << 20, 25 << 20);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].elements, 30u);
  EXPECT_EQ(b[0].first_layer, 2);
  EXPECT_EQ(b[0].ready_layer, 0);
  // A cap below one element holds one element per bucket.
  EXPECT_EQ(ddp_buckets({3}, DType::kFloat32, 1, 2).size(), 3u);
}

TEST(DdpStep, AllReduceWaitsForItsLastLayerAndOverlapsBackward) {
  const uint64_t mi = 1 << 20;
  ModelSpec m{20 * mi, 4, DType::kBFloat16, DType::kBFloat16};
  DdpOptions o;
  o.forward_s = 1e-3;
  o.backward_s = 2e-3;
  const StepSchedule s = ddp_step(m, o);
  ASSERT_EQ(s.compute.size(), 8u);
  EXPECT_EQ(s.compute[0].kind, StepTaskKind::kForward);
  EXPECT_EQ(s.compute[4].kind, StepTaskKind::kBackward);
  EXPECT_EQ(s.compute[4].layer, 3);
  ASSERT_EQ(s.comm.size(), 3u);
  EXPECT_EQ(s.comm[0].after, 4);  // backward of layer 3
  EXPECT_EQ(s.comm[1].after, 6);  // backward of layer 1
  EXPECT_EQ(s.comm[2].after, 7);  // backward of layer 0
  EXPECT_EQ(s.comm[0].bytes, 1u << 20);
  StepTiming t;
  ASSERT_TRUE(simulate_step(
      s, [](const StepTask&) { return 1e-3; }, &t));
  // Compute 12 ms; only the last bucket's 1 ms is left after backward ends.
  EXPECT_NEAR(t.compute_s, 12e-3, 1e-12);
  EXPECT_NEAR(t.comm_s, 3e-3, 1e-12);
  EXPECT_NEAR(t.step_s, 13e-3, 1e-12);
  // Pure communication: the step is the comm time.
  ASSERT_TRUE(simulate_step(
      ddp_step(m, DdpOptions{}), [](const StepTask&) { return 1e-3; }, &t));
  EXPECT_NEAR(t.step_s, 3e-3, 1e-12);
}

TEST(DdpStep, BytesPerRankMatchTheFormula) {
  ModelSpec m{10'000'000, 8, DType::kFloat32, DType::kFloat32};
  for (int n : {2, 4, 16}) {
    const StepSchedule s = ddp_step(m, DdpOptions{});
    EXPECT_NEAR(schedule_bytes_per_rank(s, n), ddp_bytes_per_rank_analytic(m, n), 1e-6);
    EXPECT_NEAR(ddp_bytes_per_rank_analytic(m, n), 2.0 * (n - 1) / n * 4e7, 1e-6);
  }
  uint64_t send = 0, recv = 0;
  schedule_buffer_bytes(ddp_step(m, DdpOptions{}), 4, &send, &recv);
  EXPECT_EQ(send, 25u << 20);
  EXPECT_EQ(recv, 25u << 20);
}

}  // namespace
}  // namespace iofab
