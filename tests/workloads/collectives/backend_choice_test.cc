// backend: auto | mpi | nccl, and the reasons the report gives.
#include <gtest/gtest.h>

#include "harness/comm/collectives.h"

namespace iofab {
namespace {

TEST(BackendChoice, AutoPicksNcclOnlyWhenEveryRankHasAGpu) {
  BackendChoice c = choose_backend("auto", true, {"", ""});
  EXPECT_EQ(c.backend, "nccl");
  EXPECT_TRUE(c.skip.empty());
  EXPECT_NE(c.reason.find("every rank"), std::string::npos);

  c = choose_backend("auto", true, {"", "no CUDA device: no CUDA-capable device is detected"});
  EXPECT_EQ(c.backend, "mpi");
  EXPECT_EQ(c.reason, "auto: no CUDA device: no CUDA-capable device is detected (rank 1)");

  c = choose_backend("auto", false, {"", ""});
  EXPECT_EQ(c.backend, "mpi");
  EXPECT_EQ(c.reason, "auto: built without NCCL");
}

TEST(BackendChoice, ExplicitBackends) {
  BackendChoice c = choose_backend("mpi", true, {"", ""});
  EXPECT_EQ(c.backend, "mpi");
  EXPECT_TRUE(c.skip.empty());

  c = choose_backend("nccl", true, {"", ""});
  EXPECT_EQ(c.backend, "nccl");

  // nccl with a rank that has no GPU: the phase is skipped, saying which rank and why.
  c = choose_backend("nccl", true, {"no CUDA device: CUDA driver version is insufficient", "x"});
  EXPECT_TRUE(c.backend.empty());
  EXPECT_EQ(c.skip, "no CUDA device: CUDA driver version is insufficient (rank 0)");

  c = choose_backend("nccl", false, {"", ""});
  EXPECT_EQ(c.skip, "built without NCCL");
}

// The backends are rows: what the phase and auto ask is a column, and every row can be made (or says why
// not) by its own factory.
TEST(BackendChoice, TheBackendsAreATable) {
  ASSERT_EQ(collective_backends().size(), 2u);
  const CollectiveBackend* mpi = find_collective_backend("mpi");
  const CollectiveBackend* nccl = find_collective_backend("nccl");
  ASSERT_NE(mpi, nullptr);
  ASSERT_NE(nccl, nullptr);
  EXPECT_EQ(find_collective_backend("auto"), nullptr);
  EXPECT_FALSE(mpi->needs_own_gpu);
  EXPECT_FALSE(mpi->one_rank);
  EXPECT_FALSE(mpi->float8);
  EXPECT_TRUE(nccl->needs_own_gpu);
  EXPECT_TRUE(nccl->one_rank);
  EXPECT_TRUE(nccl->float8);
  for (const CollectiveBackend& b : collective_backends()) EXPECT_NE(b.make, nullptr) << b.name;
  EXPECT_EQ(find_collective_backend("gloo"), nullptr);
}

TEST(BackendChoice, ThisBuildReportsItsGpuPrecisely) {
  int device = -1;
  const std::string why = gpu_for_rank(0, 1, &device);
  if (!nccl_built()) {
    EXPECT_EQ(why.rfind("built without NCCL", 0), 0u) << why;
  } else if (!why.empty()) {
    EXPECT_EQ(why.rfind("no CUDA device", 0), 0u) << why;
  } else {
    EXPECT_GE(device, 0);
  }
}

TEST(BackendChoice, DTypes) {
  EXPECT_EQ(dtype_size(DType::kBFloat16), 2u);
  EXPECT_EQ(dtype_size(DType::kInt32), 4u);
  EXPECT_EQ(parse_dtype("float16"), DType::kFloat16);
  EXPECT_FALSE(parse_dtype("fp16").has_value());
  EXPECT_EQ(dtype_name(DType::kBFloat16), "bfloat16");
}

}  // namespace
}  // namespace iofab
