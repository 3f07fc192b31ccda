// The whole rdma phase logic (skip agreement, endpoints, address exchange,
// sweep, bandwidth and ping-pong loops, merge on rank 0) with ranks as
// threads over the loopback fabric: every metric appears, counts add up,
// patterns pair ranks as documented, and every rank skips alike.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

#include "harness/rdma/loopback_fabric.h"
#include "workloads/phase_harness.h"
#include "thread_comm.h"
#include "workloads/collectives/sweep.h"
#include "workloads/rdma/rdma_run.h"

namespace iofab {
namespace {

using nlohmann::json;

RdmaSpec small_spec() {
  RdmaSpec s;
  s.min_bytes = 2;
  s.max_bytes = 4096;
  s.factor = 8;  // 2, 16, 128, 1024
  s.qps = 2;
  s.tx_depth = 8;
  s.rx_depth = 16;
  s.iters = 40;
  s.warmup = 3;
  s.stall_s = 20;
  return s;
}

struct Outcome {
  Status status;
  PhaseResult result;
};

using Opener = std::function<Status(int rank, std::unique_ptr<RdmaFabric>*)>;

std::vector<Outcome> run_loopback(int ranks, const RdmaSpec& spec, bool host_visible = true,
                                  Opener opener = {}, bool stop_now = false) {
  auto hub = make_loopback_hub();
  std::vector<Outcome> out(static_cast<size_t>(ranks));
  std::atomic<bool> stop{stop_now};
  testing::run_ranks(ranks, [&](Comm& comm) {
    const int rank = comm.rank();
    const FabricOpener open = [&](std::unique_ptr<RdmaFabric>* f) {
      if (opener) {
        Status s = opener(rank, f);
        if (!s.ok()) return s;
      }
      *f = make_loopback_fabric(hub, host_visible);
      return Status::Ok();
    };
    Outcome& o = out[static_cast<size_t>(rank)];
    o.status = run_rdma(spec, comm, open, stop, &o.result);
  });
  return out;
}

const char* const kTests[] = {"write", "read", "send"};

TEST(RdmaLoopback, TwoRanksGiveEveryMetric) {
  const RdmaSpec spec = small_spec();
  const auto out = run_loopback(2, spec);
  for (const auto& o : out) ASSERT_TRUE(o.status.ok()) << o.status.message();
  const PhaseResult& r = out[0].result;
  EXPECT_TRUE(r.skip_reason.empty());
  const auto& m = r.metrics;
  const auto sizes = sweep_sizes(spec.min_bytes, spec.max_bytes, spec.factor);
  ASSERT_EQ(sizes.size(), 4u);
  EXPECT_EQ(m.at("links"), 1);
  for (const std::string t : kTests) {
    for (const std::string fam :
         {"_bytes_per_s", "_total_bytes_per_s", "_worst_link_bytes_per_s", "_msg_rate"}) {
      ASSERT_TRUE(m.count(t + fam + ".max")) << t + fam;
      EXPECT_GT(m.at(t + fam + ".max"), 0) << t + fam;
      for (uint64_t s : sizes) EXPECT_TRUE(m.count(t + fam + "." + std::to_string(s))) << t + fam << " " << s;
    }
    for (const std::string p : {"_latency_p50_s", "_latency_p99_s", "_latency_p999_s", "_latency_max_s"}) {
      ASSERT_TRUE(m.count(t + p)) << t + p;
      EXPECT_GT(m.at(t + p), 0) << t + p;
      EXPECT_DOUBLE_EQ(m.at(t + p), m.at(t + p + ".2")) << "the headline is the smallest size's";
      for (uint64_t s : sizes) EXPECT_TRUE(m.count(t + p + "." + std::to_string(s))) << t + p << " " << s;
    }
    EXPECT_LE(m.at(t + "_latency_p50_s"), m.at(t + "_latency_p99_s"));
    EXPECT_LE(m.at(t + "_latency_p99_s"), m.at(t + "_latency_p999_s"));
    EXPECT_LE(m.at(t + "_latency_p999_s"), m.at(t + "_latency_max_s") * 1.01);
  }
  // With one link, mean, worst and total are the same figure.
  EXPECT_DOUBLE_EQ(m.at("write_bytes_per_s.1024"), m.at("write_worst_link_bytes_per_s.1024"));
  EXPECT_DOUBLE_EQ(m.at("write_bytes_per_s.1024"), m.at("write_total_bytes_per_s.1024"));
  // Every bandwidth run moved iters messages on each queue pair; every latency size kept iters samples.
  for (const auto& b : r.details["bandwidth"]) {
    ASSERT_EQ(b["per_link"].size(), 1u);
    EXPECT_EQ(b["per_link"][0]["messages"], spec.iters * spec.qps) << b.dump();
    EXPECT_EQ(b["per_link"][0]["bytes"], spec.iters * spec.qps * b["size"].get<uint64_t>()) << b.dump();
  }
  EXPECT_EQ(r.details["bandwidth"].size(), 3 * sizes.size());
  EXPECT_EQ(r.details["latency"].size(), 3 * sizes.size());
  for (const auto& l : r.details["latency"]) EXPECT_EQ(l["samples"], spec.iters) << l.dump();
  EXPECT_EQ(r.details["memory"], "host");
  EXPECT_EQ(r.details["latency"][0]["method"], "RDMA WRITE, polling the last byte");
  EXPECT_EQ(r.details["fabric"].size(), 2u);
  EXPECT_EQ(r.details["spec"]["cq_mod"], 2);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_TRUE(out[1].result.metrics.empty()) << "only rank 0 holds the merged result";
}

TEST(RdmaLoopback, MemoryTheCpuCannotReadPingsWithImmediate) {
  RdmaSpec spec = small_spec();
  spec.tests = {RdmaTest::kWrite};
  spec.bandwidth = false;
  const auto out = run_loopback(2, spec, /*host_visible=*/false);
  ASSERT_TRUE(out[0].status.ok()) << out[0].status.message();
  for (const auto& l : out[0].result.details["latency"]) EXPECT_EQ(l["samples"], spec.iters);
  EXPECT_GT(out[0].result.metrics.at("write_latency_p50_s"), 0);
  EXPECT_EQ(out[0].result.metrics.count("write_bytes_per_s.max"), 0u);
}

TEST(RdmaLoopback, OddRankOutIdles) {
  RdmaSpec spec = small_spec();
  spec.tests = {RdmaTest::kSend};
  const auto out = run_loopback(3, spec);
  for (const auto& o : out) ASSERT_TRUE(o.status.ok()) << o.status.message();
  const PhaseResult& r = out[0].result;
  EXPECT_EQ(r.metrics.at("links"), 1);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "rank 2 has no partner in pattern pairs (3 ranks): it idles");
}

TEST(RdmaLoopback, FourRanksPairsMeasureTwoLinksAtOnce) {
  RdmaSpec spec = small_spec();
  spec.tests = {RdmaTest::kWrite};
  spec.max_bytes = 16;
  const auto out = run_loopback(4, spec);
  ASSERT_TRUE(out[0].status.ok()) << out[0].status.message();
  const auto& m = out[0].result.metrics;
  EXPECT_EQ(m.at("links"), 2);
  EXPECT_NEAR(m.at("write_total_bytes_per_s.16"), 2 * m.at("write_bytes_per_s.16"),
              1e-6 * m.at("write_total_bytes_per_s.16"));
  EXPECT_LE(m.at("write_worst_link_bytes_per_s.16"), m.at("write_bytes_per_s.16"));
  for (const auto& l : out[0].result.details["latency"]) EXPECT_EQ(l["samples"], 2 * spec.iters);
}

TEST(RdmaLoopback, AllToOneServesEveryRankAtOnce) {
  RdmaSpec spec = small_spec();
  spec.pattern = RdmaPattern::kAllToOne;
  spec.max_bytes = 128;
  const auto out = run_loopback(4, spec);
  for (const auto& o : out) ASSERT_TRUE(o.status.ok()) << o.status.message();
  const PhaseResult& r = out[0].result;
  EXPECT_EQ(r.metrics.at("links"), 3);
  for (const auto& b : r.details["bandwidth"]) {
    ASSERT_EQ(b["per_link"].size(), 3u);
    for (const auto& l : b["per_link"]) {
      EXPECT_EQ(l["target"], 0);
      EXPECT_EQ(l["messages"], spec.iters * spec.qps);
    }
  }
  for (const auto& l : r.details["latency"]) EXPECT_EQ(l["samples"], 3 * spec.iters);
  EXPECT_EQ(r.details["spec"]["links"].size(), 3u);
}

TEST(RdmaLoopback, DurationRunsBandwidthByTime) {
  RdmaSpec spec = small_spec();
  spec.latency = false;
  spec.duration_s = 0.01;
  spec.max_bytes = 16;
  spec.tests = {RdmaTest::kSend, RdmaTest::kWrite};
  const auto out = run_loopback(2, spec);
  for (const auto& o : out) ASSERT_TRUE(o.status.ok()) << o.status.message();
  for (const auto& b : out[0].result.details["bandwidth"]) {
    const double secs = b["per_link"][0]["seconds"].get<double>();
    EXPECT_GE(secs, spec.duration_s) << b.dump();
    EXPECT_GT(b["per_link"][0]["messages"].get<uint64_t>(), 0u);
  }
  EXPECT_EQ(out[0].result.details["latency"].size(), 0u);
}

TEST(RdmaLoopback, EveryRankSkipsAlike) {
  const std::string none = "no RDMA device (no /sys/class/infiniband entries)";
  auto out = run_loopback(2, small_spec(), true,
                          [&](int, std::unique_ptr<RdmaFabric>*) { return Status::Unavailable(none); });
  for (const auto& o : out) {
    EXPECT_TRUE(o.status.ok());
    EXPECT_EQ(o.result.skip_reason, none);
  }
  // Only rank 1 lacks it: both skip, saying where.
  out = run_loopback(2, small_spec(), true, [&](int rank, std::unique_ptr<RdmaFabric>*) {
    return rank == 1 ? Status::Unavailable("no active port on mlx5_0") : Status::Ok();
  });
  for (const auto& o : out)
    EXPECT_EQ(o.result.skip_reason, "no active port on mlx5_0 (on 1 of 2 ranks, first rank 1)");
  // Different reasons: the first rank's, named.
  out = run_loopback(3, small_spec(), true, [&](int rank, std::unique_ptr<RdmaFabric>*) {
    return rank == 0 ? Status::Ok() : Status::Unavailable("no CUDA device " + std::to_string(rank));
  });
  for (const auto& o : out) EXPECT_EQ(o.result.skip_reason, "rank 1: no CUDA device 1");
}

TEST(RdmaLoopback, OneRankNeedsTwo) {
  const auto out = run_loopback(1, small_spec());
  EXPECT_TRUE(out[0].status.ok());
  EXPECT_EQ(out[0].result.skip_reason, "needs >= 2 ranks");
}

TEST(RdmaLoopback, AnOpenErrorFailsEveryRank) {
  const auto out = run_loopback(2, small_spec(), true, [&](int rank, std::unique_ptr<RdmaFabric>*) {
    return rank == 1 ? Status::IoError("ibv_alloc_pd(mlx5_0): Cannot allocate memory") : Status::Ok();
  });
  EXPECT_EQ(out[0].status.message(), "rank 1: ibv_alloc_pd(mlx5_0): Cannot allocate memory");
  EXPECT_EQ(out[1].status.message(), "ibv_alloc_pd(mlx5_0): Cannot allocate memory");
  for (const auto& o : out) EXPECT_TRUE(o.result.skip_reason.empty());
}

// A device slow to open on one rank is setup on every rank: each waits for it before the sweep.
TEST(RdmaLoopback, ASlowOpenIsEveryRanksSetup) {
  const auto out = run_loopback(2, small_spec(), true, [&](int rank, std::unique_ptr<RdmaFabric>*) {
    if (rank == 1) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return Status::Ok();
  });
  for (const auto& o : out) {
    ASSERT_TRUE(o.status.ok()) << o.status.message();
    ASSERT_TRUE(o.result.setup_seconds.has_value());
    EXPECT_GE(*o.result.setup_seconds, 0.3);
  }
}

TEST(RdmaLoopback, StopFlagInterrupts) {
  const auto out = run_loopback(2, small_spec(), true, {}, /*stop_now=*/true);
  EXPECT_EQ(out[0].status.code(), Status::Code::kInterrupted) << out[0].status.message();
  EXPECT_EQ(out[1].status.code(), Status::Code::kInterrupted) << out[1].status.message();
  EXPECT_EQ(out[0].result.metrics.count("write_bytes_per_s.max"), 0u);
}

// Through the phase table on this rank's real fabric: skipped, with the reason.
TEST(RdmaLoopback, PhaseOnThisMachineSkipsWithReason) {
  testing::PhaseHarness h;
  PhaseResult r;
  Status s = h.run("rdma", "rdma", json{{"max_bytes", "4KiB"}, {"iters", 10}}, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_FALSE(r.skip_reason.empty()) << "one rank never measures";
  std::error_code ec;
  if (!std::filesystem::exists("/sys/class/infiniband", ec)) {
#ifdef IOFAB_HAVE_IBVERBS
    EXPECT_EQ(r.skip_reason, "no RDMA device (no /sys/class/infiniband entries)");
#else
    EXPECT_EQ(r.skip_reason, "built without libibverbs");
#endif
  }
}

}  // namespace
}  // namespace iofab
