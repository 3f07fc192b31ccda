// Endpoint addresses as JSON text, their checks, and the exchange over the
// control plane with several ranks.
#include <gtest/gtest.h>

#include <mutex>

#include "thread_comm.h"
#include "workloads/rdma/pairing.h"
#include "workloads/rdma/qp_exchange.h"

namespace iofab {
namespace {

using nlohmann::json;

EndpointInfo sample_info(uint32_t base) {
  EndpointInfo e;
  e.lid = 0x12;
  e.gid = "0000:0000:0000:0000:0000:ffff:0a00:0005";
  e.gid_index = 3;
  e.mtu = 4096;
  e.addr = 0x7f0000001000ULL + base;
  e.rkey = 0xdeadbeef;
  e.bytes = 1 << 20;
  e.qps = {{base + 1, 0xabcdef}, {base + 2, 17}};
  return e;
}

TEST(RdmaQpExchange, JsonRoundTrip) {
  const EndpointInfo e = sample_info(100);
  EndpointInfo back;
  std::string error;
  ASSERT_TRUE(endpoint_info_from_json(json::parse(endpoint_info_to_json(e).dump()), &back, &error)) << error;
  EXPECT_EQ(back, e);
}

TEST(RdmaQpExchange, BadInputSaysWhichField) {
  const json good = endpoint_info_to_json(sample_info(1));
  EndpointInfo out;
  std::string error;
  auto reject = [&](json j, const std::string& field) {
    error.clear();
    EXPECT_FALSE(endpoint_info_from_json(j, &out, &error)) << j.dump();
    EXPECT_NE(error.find(field), std::string::npos) << error;
  };
  json j = good;
  j.erase("qps");
  reject(j, "qps");
  j = good;
  j["qps"][0]["qpn"] = 1 << 24;  // queue pair numbers have 24 bits
  reject(j, "qpn");
  j = good;
  j["qps"][1].erase("psn");
  reject(j, "psn");
  j = good;
  j["lid"] = -1;
  reject(j, "lid");
  j = good;
  j["gid"] = "fe80::1";
  reject(j, "gid");
  j = good;
  j["rkey"] = "x";
  reject(j, "rkey");
  j = good;
  j["qps"] = json::array();
  reject(j, "qps");
  reject(json::array(), "object");
  EXPECT_FALSE(endpoint_info_from_json(json("text"), &out, &error));
}

TEST(RdmaQpExchange, EveryRankGetsWhatItsPeersExportedForIt) {
  constexpr int kRanks = 4;
  const auto links = rdma_links(RdmaPattern::kAllToOne, kRanks);
  std::mutex mu;
  std::vector<std::map<int, EndpointInfo>> got(kRanks);
  testing::run_ranks(kRanks, [&](Comm& comm) {
    const RdmaRole role = rdma_role(links, comm.rank());
    // Each rank's endpoint for peer p is told apart by base = 100 * rank + p.
    std::map<int, EndpointInfo> mine, theirs;
    if (role.initiates)
      mine[role.initiates->target] = sample_info(100 * comm.rank() + role.initiates->target);
    for (const auto& l : role.serves) mine[l.initiator] = sample_info(100 * comm.rank() + l.initiator);
    Status s = exchange_endpoints(comm, mine, &theirs);
    EXPECT_TRUE(s.ok()) << s.message();
    std::lock_guard<std::mutex> lock(mu);
    got[static_cast<size_t>(comm.rank())] = theirs;
  });
  ASSERT_EQ(got[0].size(), 3u);
  for (int p = 1; p < kRanks; ++p) {
    EXPECT_EQ(got[0][p], sample_info(100 * p + 0)) << p;
    ASSERT_EQ(got[static_cast<size_t>(p)].size(), 1u);
    EXPECT_EQ(got[static_cast<size_t>(p)][0], sample_info(p)) << p;
  }
}

TEST(RdmaQpExchange, MissingPeerEntryIsAnError) {
  testing::run_ranks(2, [&](Comm& comm) {
    std::map<int, EndpointInfo> mine, theirs;
    // Rank 1 exports nothing, so rank 0 finds no endpoint meant for it.
    if (comm.rank() == 0) mine[1] = sample_info(1);
    Status s = exchange_endpoints(comm, mine, &theirs);
    if (comm.rank() == 0) {
      EXPECT_FALSE(s.ok());
      EXPECT_NE(s.message().find("rank 1 exported no endpoint for rank 0"), std::string::npos) << s.message();
    } else {
      EXPECT_TRUE(s.ok());
    }
  });
}

}  // namespace
}  // namespace iofab
