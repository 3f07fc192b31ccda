// nccl-tests' bandwidth definitions, so figures compare with theirs.
#include "workloads/collectives/bus_bandwidth.h"

#include <gtest/gtest.h>

namespace iofab {
namespace {

TEST(BusBandwidth, FactorsMatchNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(CollOp::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(CollOp::kAllGather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(CollOp::kReduceScatter, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(CollOp::kAllToAll, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(CollOp::kBroadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(CollOp::kReduce, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(CollOp::kAllReduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(CollOp::kAllGather, 2), 0.5);
}

TEST(BusBandwidth, WorkedExample) {
  // 1 GiB all-reduce over 16 ranks in 50 ms: algbw 21.47 GB/s, busbw x 30/16.
  const double s = 1 << 30;
  EXPECT_NEAR(algbw(s, 0.05), 21.474836e9, 1e3);
  EXPECT_NEAR(busbw(CollOp::kAllReduce, 16, s, 0.05), 21.474836e9 * 30 / 16, 1e3);
  EXPECT_EQ(algbw(s, 0), 0);
  EXPECT_DOUBLE_EQ(bus_bytes_per_rank(CollOp::kAllGather, 4, 400), 300);
}

TEST(BusBandwidth, NamesRoundTrip) {
  for (CollOp op : {CollOp::kAllReduce, CollOp::kAllGather, CollOp::kReduceScatter, CollOp::kBroadcast,
                    CollOp::kReduce, CollOp::kAllToAll}) {
    EXPECT_EQ(parse_coll_op(coll_op_name(op)), op);
  }
  EXPECT_EQ(coll_op_name(CollOp::kAllToAll), "all_to_all");
  EXPECT_FALSE(parse_coll_op("allreduce").has_value());
}

}  // namespace
}  // namespace iofab
