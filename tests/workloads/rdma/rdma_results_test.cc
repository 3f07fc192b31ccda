// From initiators' samples to the phase's figures: per-link mean, worst and
// total bandwidth, message rate, latency percentiles merged over links, the
// smallest size as headline, and the samples' JSON form.
#include "workloads/rdma/rdma_results.h"

#include <gtest/gtest.h>

namespace iofab {
namespace {

using nlohmann::json;

RdmaSample bw(RdmaTest t, uint64_t size, RdmaLink link, uint64_t bytes, double seconds) {
  RdmaSample s;
  s.test = t;
  s.size = size;
  s.link = link;
  s.bw = {bytes, bytes / size, seconds};
  return s;
}

RdmaSample lat(RdmaTest t, uint64_t size, RdmaLink link, uint64_t first_ns, uint64_t n) {
  RdmaSample s;
  s.test = t;
  s.latency = true;
  s.size = size;
  s.link = link;
  for (uint64_t i = 0; i < n; ++i) s.lat.record(first_ns + i * 1000);
  return s;
}

TEST(RdmaResults, BandwidthPerLinkWorstAndTotal) {
  // Two links at 64 KiB: 2 GB/s and 1 GB/s; one size of 4 KiB at 0.5 GB/s on both.
  const std::vector<RdmaSample> samples = {
      bw(RdmaTest::kWrite, 65536, {0, 1}, 65536ULL * 1000, 65536e3 / 2e9),
      bw(RdmaTest::kWrite, 65536, {2, 3}, 65536ULL * 1000, 65536e3 / 1e9),
      bw(RdmaTest::kWrite, 4096, {0, 1}, 4096ULL * 1000, 4096e3 / 0.5e9),
      bw(RdmaTest::kWrite, 4096, {2, 3}, 4096ULL * 1000, 4096e3 / 0.5e9),
  };
  PhaseResult r;
  add_rdma_results(samples, &r);
  auto& m = r.metrics;
  EXPECT_NEAR(m.at("write_bytes_per_s.65536"), 1.5e9, 1);
  EXPECT_NEAR(m.at("write_worst_link_bytes_per_s.65536"), 1e9, 1);
  EXPECT_NEAR(m.at("write_total_bytes_per_s.65536"), 3e9, 1);
  EXPECT_NEAR(m.at("write_bytes_per_s.4096"), 0.5e9, 1);
  EXPECT_NEAR(m.at("write_bytes_per_s.max"), 1.5e9, 1);
  EXPECT_NEAR(m.at("write_total_bytes_per_s.max"), 3e9, 1);
  // 1000 messages in 65536e3 / 2e9 s on link 0-1, in twice that on 2-3: mean rate 0.75 * 2e9 / 65536.
  EXPECT_NEAR(m.at("write_msg_rate.65536"), (2e9 + 1e9) / 2 / 65536, 1e-6);
  EXPECT_NEAR(m.at("write_msg_rate.max"), 0.5e9 / 4096, 1e-6);
  EXPECT_EQ(m.count("read_bytes_per_s.max"), 0u);
  const json& d = r.details["bandwidth"];
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0]["links"], 2);
  EXPECT_EQ(d[0]["per_link"][1]["initiator"], 2);
  EXPECT_EQ(d[0]["per_link"][1]["messages"], 1000);
}

TEST(RdmaResults, LatencyPercentilesMergeLinksAndHeadlineIsSmallestSize) {
  // Link 0-1: 1..500 us; link 2-3: 501..1000 us, at 8 bytes; 2 bytes listed later but smaller.
  const std::vector<RdmaSample> samples = {
      lat(RdmaTest::kSend, 8, {0, 1}, 1000, 500),
      lat(RdmaTest::kSend, 8, {2, 3}, 501000, 500),
      lat(RdmaTest::kSend, 2, {0, 1}, 10000, 1),
  };
  PhaseResult r;
  add_rdma_results(samples, &r);
  auto& m = r.metrics;
  // Merged: 1000 samples of 1..1000 us; the histogram is within 1%.
  EXPECT_NEAR(m.at("send_latency_p50_s.8"), 500e-6, 5e-6);
  EXPECT_NEAR(m.at("send_latency_p99_s.8"), 990e-6, 10e-6);
  EXPECT_NEAR(m.at("send_latency_p999_s.8"), 999e-6, 10e-6);
  EXPECT_DOUBLE_EQ(m.at("send_latency_max_s.8"), 1000e-6);  // max is exact
  EXPECT_LE(m.at("send_latency_p50_s.8"), m.at("send_latency_p99_s.8"));
  EXPECT_LE(m.at("send_latency_p99_s.8"), m.at("send_latency_p999_s.8"));
  // The headline is the 2-byte size's, though it came last.
  EXPECT_NEAR(m.at("send_latency_p50_s"), 10e-6, 0.1e-6);
  EXPECT_NEAR(m.at("send_latency_max_s"), 10e-6, 1e-12);
  const json& d = r.details["latency"];
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0]["samples"], 1000);
  EXPECT_EQ(d[0]["measure"], "half round trip");
}

TEST(RdmaResults, ReadLatencyIsTheFullRoundTrip) {
  PhaseResult r;
  add_rdma_results({lat(RdmaTest::kRead, 2, {0, 1}, 3000, 10)}, &r);
  EXPECT_EQ(r.details["latency"][0]["measure"], "round trip");
  EXPECT_NEAR(r.metrics.at("read_latency_p50_s"), 7e-6, 0.1e-6);
}

TEST(RdmaResults, SamplesRoundTripThroughJson) {
  const RdmaSample b = bw(RdmaTest::kRead, 4096, {4, 5}, 4096 * 10, 0.25);
  const RdmaSample l = lat(RdmaTest::kWrite, 2, {0, 1}, 1500, 3);
  RdmaSample b2, l2;
  ASSERT_TRUE(RdmaSample::from_json(json::parse(b.to_json().dump()), &b2));
  ASSERT_TRUE(RdmaSample::from_json(json::parse(l.to_json().dump()), &l2));
  EXPECT_EQ(b2.test, RdmaTest::kRead);
  EXPECT_EQ(b2.link, (RdmaLink{4, 5}));
  EXPECT_EQ(b2.bw.bytes, 40960u);
  EXPECT_EQ(b2.bw.messages, 10u);
  EXPECT_DOUBLE_EQ(b2.bw.seconds, 0.25);
  EXPECT_TRUE(l2.latency);
  EXPECT_EQ(l2.lat.count(), 3u);
  EXPECT_EQ(l2.lat.max(), 3500u);

  RdmaSample out;
  EXPECT_FALSE(RdmaSample::from_json(json::object(), &out));
  json bad = b.to_json();
  bad["test"] = "atomic";
  EXPECT_FALSE(RdmaSample::from_json(bad, &out));
  bad = b.to_json();
  bad.erase("ns");
  EXPECT_FALSE(RdmaSample::from_json(bad, &out));
  bad = l.to_json();
  bad["hist"] = "x";
  EXPECT_FALSE(RdmaSample::from_json(bad, &out));
}

}  // namespace
}  // namespace iofab
