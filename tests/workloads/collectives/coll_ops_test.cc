// The op table's counts, fills and checks agree with what each collective
// must produce: n ranks are simulated in one process with a plain reference
// implementation of each op, and a corrupted element is caught.
#include "workloads/collectives/coll_ops.h"

#include <gtest/gtest.h>

#include <iterator>
#include <set>
#include <string_view>
#include <tuple>
#include <vector>

#include "workloads/collectives/coll_data.h"

namespace iofab {
namespace {

using Bytes = std::vector<unsigned char>;

struct Ranks {
  std::vector<Bytes> send, recv;
};

// Whether the op writes rank me's recv: broadcast's root keeps its buffer, reduce writes the root's only.
bool has_output(CollOp op, int me, int root) {
  if (op == coll_op("broadcast")) return me != root;
  if (op == coll_op("reduce") || op == coll_op("gather")) return me == root;
  return true;
}

// What the collective computes, on host data, for every rank at once.
void reference(CollOp op, const OpCounts& c, DType t, int n, int root, Ranks* r) {
  auto get = [&](const Bytes& b, size_t i) { return load_value(t, b.data(), i); };
  auto put = [&](Bytes& b, size_t i, double v) { store_value(t, b.data(), i, v); };
  for (int me = 0; me < n; ++me) {
    Bytes& out = r->recv[static_cast<size_t>(me)];
    for (size_t i = 0; i < c.recv; ++i) {
      double v = 0;
      const std::string_view name = op->name;
      if (name == "all_reduce" || name == "reduce") {
        for (int p = 0; p < n; ++p) v += get(r->send[static_cast<size_t>(p)], i);
      } else if (name == "all_gather") {
        v = get(r->send[i / c.param], i % c.param);
      } else if (name == "reduce_scatter") {
        for (int p = 0; p < n; ++p) v += get(r->send[static_cast<size_t>(p)], me * c.param + i);
      } else if (name == "broadcast") {
        v = get(r->recv[static_cast<size_t>(root)], i);
      } else if (name == "all_to_all") {
        v = get(r->send[i / c.param], me * c.param + i % c.param);
      } else if (name == "gather") {
        v = get(r->send[i / c.param], i % c.param);
      } else if (name == "scatter") {
        v = get(r->send[static_cast<size_t>(root)], me * c.param + i);
      } else if (name == "sendrecv") {
        v = get(r->send[static_cast<size_t>((me - 1 + n) % n)], i);
      } else {
        ADD_FAILURE() << "no reference for op " << name << ": add one with its row";
      }
      if (has_output(op, me, root)) put(out, i, v);
    }
  }
}

class CollOpsAllRanks : public ::testing::TestWithParam<std::tuple<int, DType>> {};

TEST_P(CollOpsAllRanks, ReferenceResultChecksCleanAndACorruptElementIsCaught) {
  const auto [n, t] = GetParam();
  const size_t es = dtype_size(t);
  for (const auto& info : coll_op_table()) {
    SCOPED_TRACE(std::string(coll_op_name(&info)) + " n=" + std::to_string(n));
    const OpCounts c = info.counts(1000 + 7, n, es);
    ASSERT_GT(c.bus, 0u);
    const int root = n - 1;
    Ranks r;
    for (int me = 0; me < n; ++me) {
      r.send.emplace_back(std::max<size_t>(c.send, 1) * es);
      r.recv.emplace_back(c.recv * es);
      const OpArgs a{c, t, me, n, root};
      info.fill(a, r.send.back().data(), r.recv.back().data());
      // Before the op runs, every output element is wrong (the sentinel), and a buffer the op must not
      // write is right as it stands.
      EXPECT_EQ(info.check(a, r.recv.back().data()), has_output(&info, me, root) ? c.recv : 0u);
    }
    reference(&info, c, t, n, root, &r);
    for (int me = 0; me < n; ++me) {
      const OpArgs a{c, t, me, n, root};
      EXPECT_EQ(info.check(a, r.recv[static_cast<size_t>(me)].data()), 0u) << "rank " << me;
    }
    // One element changed is one wrong element (-2: no op produces it, and every type holds it).
    const OpArgs a0{c, t, 0, n, root};
    const size_t i = c.recv / 2;
    store_value(t, r.recv[0].data(), i, -2);
    EXPECT_EQ(info.check(a0, r.recv[0].data()), 1u);
  }
}

INSTANTIATE_TEST_SUITE_P(RanksAndTypes, CollOpsAllRanks,
                         ::testing::Combine(::testing::Values(2, 3, 4, 7),
                                            ::testing::Values(DType::kFloat32, DType::kFloat16,
                                                              DType::kBFloat16, DType::kInt32,
                                                              DType::kFloat64, DType::kInt64,
                                                              DType::kFloat8E4M3, DType::kFloat8E5M2)));

TEST(CollOps, CountsFollowNcclTests) {
  // 4 ranks, a 1003-element float32 size: gathered and scattered ops take 1003 / 4 = 250 per rank,
  // rounded down to 16 bytes (248); reduce moves what all_reduce moves (to one rank); broadcast runs
  // in place on recv.
  struct Case {
    const char* op;
    OpCounts want;  // send, recv, param, bus
  };
  const Case cases[] = {{"all_reduce", {1003, 1003, 1003, 1003}}, {"reduce", {1003, 1003, 1003, 1003}},
                        {"all_gather", {248, 992, 248, 992}},     {"reduce_scatter", {992, 248, 248, 992}},
                        {"broadcast", {0, 1003, 1003, 1003}},     {"all_to_all", {992, 992, 248, 992}},
                        {"gather", {248, 992, 248, 992}},         {"scatter", {992, 248, 248, 992}},
                        {"sendrecv", {1003, 1003, 1003, 1003}}};
  for (const Case& c : cases) {
    const OpCounts got = coll_op(c.op)->counts(1003, 4, 4);
    EXPECT_EQ(std::tie(got.send, got.recv, got.param, got.bus),
              std::tie(c.want.send, c.want.recv, c.want.param, c.want.bus))
        << c.op;
  }
  // Too small to give every rank an element: not run.
  EXPECT_EQ(coll_op("all_gather")->counts(3, 4, 4).bus, 0u);
  // Fewer than 16 bytes per rank rounds to nothing, as nccl-tests' mask does.
  EXPECT_EQ(coll_op("reduce_scatter")->counts(12, 4, 4).bus, 0u);
}

TEST(CollOps, BlocksPerRankAreWhole16ByteLines) {
  // nccl-tests: (count/nranks) & -(16/eltSize). 3 ranks, 1 KiB of float32: 85 -> 84 elements per rank,
  // 1008 bytes moved, where count/nranks alone would move 1020.
  for (const char* op : {"all_gather", "reduce_scatter", "all_to_all", "gather", "scatter"}) {
    const OpCounts c = coll_op(op)->counts(1024 / 4, 3, 4);
    EXPECT_EQ(c.param, 84u) << op;
    EXPECT_EQ(c.bus * 4, 1008u) << op;
  }
  EXPECT_EQ(block_per_rank(256, 3, 2), 80u);  // 16-bit: multiples of 8
  EXPECT_EQ(block_per_rank(256, 3, 8), 84u);  // 64-bit: multiples of 2
  EXPECT_EQ(block_per_rank(256, 3, 1), 80u);  // 8-bit: multiples of 16
  // In place, all_gather sends from its own block and reduce_scatter keeps its result in its own.
  const OpCounts ag = coll_op("all_gather")->counts(256, 3, 4);
  EXPECT_EQ(ag.send_in_place, 84u);
  EXPECT_EQ(in_place_extent(ag, 3), 252u);
  const OpCounts rs = coll_op("reduce_scatter")->counts(256, 3, 4);
  EXPECT_EQ(rs.recv_in_place, 84u);
  EXPECT_EQ(in_place_extent(rs, 3), 252u);
}

TEST(CollOps, OneRowPerOpNamedAsTheSuiteNamesIt) {
  const CollOp all[] = {coll_op("all_reduce"), coll_op("all_gather"), coll_op("reduce_scatter"),
                        coll_op("broadcast"),  coll_op("reduce"),     coll_op("all_to_all"),
                        coll_op("gather"),     coll_op("scatter"),    coll_op("sendrecv")};
  EXPECT_EQ(coll_op_table().size(), std::size(all));
  for (CollOp op : all) {
    const CollOpInfo* info = op;
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(find_coll_op(info->name), info);
    EXPECT_EQ(coll_op_name(op), info->name);
  }
  // A row's address is its op: two rows of one name would make the second unreachable.
  std::set<std::string_view> names;
  for (const auto& info : coll_op_table()) EXPECT_TRUE(names.insert(info.name).second) << info.name;
  // The default sweep is the five ops iofab began with; reduce, gather, scatter and sendrecv run when a
  // suite names them.
  std::vector<std::string_view> defaults;
  for (const auto& info : coll_op_table()) {
    if (info.by_default) defaults.push_back(info.name);
  }
  EXPECT_EQ(defaults, (std::vector<std::string_view>{"all_reduce", "all_gather", "reduce_scatter",
                                                     "broadcast", "all_to_all"}));
}

TEST(CollOps, ReduceLeavesTheOtherRanksRecvAlone) {
  const CollOpInfo& reduce = *coll_op("reduce");
  const OpCounts c = reduce.counts(64, 3, 4);
  std::vector<unsigned char> send(c.send * 4), recv(c.recv * 4);
  const OpArgs other{c, DType::kFloat32, 0, 3, 2};
  reduce.fill(other, send.data(), recv.data());
  EXPECT_EQ(reduce.check(other, recv.data()), 0u);
  // A library that wrote a non-root rank's recv is caught.
  store_value(DType::kFloat32, recv.data(), 5, 0);
  EXPECT_EQ(reduce.check(other, recv.data()), 1u);
}

TEST(CollData, ReductionsStayExactForManyRanks) {
  for (DType t : {DType::kBFloat16, DType::kFloat16, DType::kFloat32}) {
    for (int n : {2, 8, 100, 300, 5000}) {
      const ReducePattern p = reduce_pattern(t, n);
      for (uint64_t i = 0; i < 50; ++i) {
        double sum = 0;
        std::vector<unsigned char> cell(4);
        // Summing in the dtype, one rank at a time, must land on the exact sum.
        for (int r = 0; r < n; ++r) {
          store_value(t, cell.data(), 0, sum + reduce_input(p, r, i));
          sum = load_value(t, cell.data(), 0);
        }
        ASSERT_EQ(sum, reduce_result(p, i)) << dtype_name(t) << " n=" << n << " i=" << i;
      }
    }
  }
}

TEST(CollData, EveryOperatorAndTypeStaysExact) {
  // nccl-tests' -o sum, prod, min, max, avg on every type iofab has, reduced in the dtype one rank at a
  // time (avg: the sum, then / n), lands on the exact result.
  for (DType t : all_dtypes()) {
    for (RedOp op : {RedOp::kSum, RedOp::kProd, RedOp::kMin, RedOp::kMax, RedOp::kAvg}) {
      for (int n : {2, 3, 7, 16}) {
        const ReducePattern p = reduce_pattern(t, n, op);
        for (uint64_t i = 0; i < 40; ++i) {
          std::vector<unsigned char> cell(8);
          double acc = reduce_input(p, 0, i);
          for (int r = 1; r < n; ++r) {
            const double x = reduce_input(p, r, i);
            const double v = op == RedOp::kProd  ? acc * x
                             : op == RedOp::kMin ? std::min(acc, x)
                             : op == RedOp::kMax ? std::max(acc, x)
                                                 : acc + x;
            store_value(t, cell.data(), 0, v);
            acc = load_value(t, cell.data(), 0);
          }
          if (op == RedOp::kAvg) acc = as_stored(t, acc / n);
          ASSERT_EQ(acc, reduce_result(p, i))
              << dtype_name(t) << " " << redop_name(op) << " n=" << n << " i=" << i;
        }
      }
    }
  }
  // Moved values a float8 cannot hold compare as it stores them.
  EXPECT_EQ(as_stored(DType::kFloat8E4M3, 250), 256);
  EXPECT_EQ(as_stored(DType::kFloat8E5M2, 7), 7);
  EXPECT_EQ(as_stored(DType::kInt64, 1e15), 1e15);
  // Values depend on the index, so misplaced blocks are caught.
  const ReducePattern p = reduce_pattern(DType::kFloat32, 2);
  bool varies = false;
  for (uint64_t i = 1; i < 20; ++i) varies = varies || reduce_result(p, i) != reduce_result(p, 0);
  EXPECT_TRUE(varies);
}

TEST(CollOpsDeathTest, ANameTheCodeUsesThatTheTableLacksStopsTheRun) {
  EXPECT_DEATH(coll_op("allreduce"), "no collective op \"allreduce\" in the op table");
}

}  // namespace
}  // namespace iofab
