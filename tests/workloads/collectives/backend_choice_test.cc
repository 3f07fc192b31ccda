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
