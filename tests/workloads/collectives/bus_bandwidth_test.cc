// nccl-tests' bandwidth definitions, so figures compare with theirs.
#include "workloads/collectives/bus_bandwidth.h"

#include <gtest/gtest.h>

namespace iofab {
namespace {

TEST(BusBandwidth, FactorsMatchNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(coll_op("all_reduce"), 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(coll_op("all_gather"), 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(coll_op("reduce_scatter"), 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(coll_op("all_to_all"), 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(coll_op("broadcast"), 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(coll_op("reduce"), 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(coll_op("all_reduce"), 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(coll_op("all_gather"), 2), 0.5);
}

TEST(BusBandwidth, WorkedExample) {
  // 1 GiB all-reduce over 16 ranks in 50 ms: algbw 21.47 GB/s, busbw x 30/16.
  const double s = 1 << 30;
  EXPECT_NEAR(algbw(s, 0.05), 21.474836e9, 1e3);
  EXPECT_NEAR(busbw(coll_op("all_reduce"), 16, s, 0.05), 21.474836e9 * 30 / 16, 1e3);
  EXPECT_EQ(algbw(s, 0), 0);
  EXPECT_DOUBLE_EQ(bus_bytes_per_rank(coll_op("all_gather"), 4, 400), 300);
}

TEST(BusBandwidth, NamesRoundTrip) {
  for (CollOp op : {coll_op("all_reduce"), coll_op("all_gather"), coll_op("reduce_scatter"), coll_op("broadcast"),
                    coll_op("reduce"), coll_op("all_to_all")}) {
    EXPECT_EQ(parse_coll_op(coll_op_name(op)), op);
  }
  EXPECT_EQ(coll_op_name(coll_op("all_to_all")), "all_to_all");
  EXPECT_FALSE(parse_coll_op("allreduce").has_value());
}

}  // namespace
}  // namespace iofab
