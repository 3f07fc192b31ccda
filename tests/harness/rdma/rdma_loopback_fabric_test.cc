// The loopback fabric keeps the RC semantics the rdma phase's loops rely on:
// WRITE lands in the peer's in slot, READ fetches its out slot, SEND waits
// for a posted receive, only signaled work completes, immediates arrive.
#include <gtest/gtest.h>

#include "harness/rdma/loopback_fabric.h"

namespace iofab {
namespace {

class LoopbackPair : public ::testing::Test {
 protected:
  void SetUp() override {
    auto hub = make_loopback_hub();
    fa_ = make_loopback_fabric(hub);
    fb_ = make_loopback_fabric(hub);
    EndpointSpec spec;
    spec.qps = 2;
    spec.tx_depth = 8;
    spec.rx_depth = 4;
    spec.slot_bytes = 64;
    ASSERT_TRUE(fa_->create_endpoint(spec, &a_).ok());
    ASSERT_TRUE(fb_->create_endpoint(spec, &b_).ok());
    ASSERT_TRUE(a_->connect(b_->info()).ok());
    ASSERT_TRUE(b_->connect(a_->info()).ok());
  }
  int poll(RdmaEndpoint& ep, bool recv, Completion* c, int max = 8) {
    int n = 0;
    EXPECT_TRUE(ep.poll(recv, max, c, &n).ok());
    return n;
  }

  std::unique_ptr<RdmaFabric> fa_, fb_;
  std::unique_ptr<RdmaEndpoint> a_, b_;
  static constexpr uint64_t kIn1 = (2 + 1) * 64;  // in slot of queue pair 1
};

TEST_F(LoopbackPair, WriteLandsInPeersInSlotAndOnlyTheLastSignals) {
  a_->poke(64 + 9, 0x5a);  // out slot of queue pair 1, byte 9
  ASSERT_TRUE(a_->post({1, RdmaOp::kWrite, 3, 10, true, 77, 0}).ok());
  EXPECT_EQ(b_->peek(kIn1 + 9), 0x5a);
  Completion c[8];
  ASSERT_EQ(poll(*a_, false, c), 1);
  EXPECT_EQ(c[0].wr_id, 77u);
  EXPECT_EQ(c[0].qp, 1);
  EXPECT_EQ(poll(*b_, true, c), 0) << "a plain WRITE is invisible to the target's CPU";
  ASSERT_TRUE(a_->post({0, RdmaOp::kWrite, 2, 4, false, 1, 0}).ok());
  EXPECT_EQ(poll(*a_, false, c), 0) << "unsignaled work completes silently";
}

TEST_F(LoopbackPair, ReadFetchesPeersOutSlot) {
  b_->poke(64 + 3, 0x77);
  ASSERT_TRUE(a_->post({1, RdmaOp::kRead, 1, 4, true, 5, 0}).ok());
  EXPECT_EQ(a_->peek(kIn1 + 3), 0x77);
  Completion c[8];
  EXPECT_EQ(poll(*a_, false, c), 1);
}

TEST_F(LoopbackPair, SendWaitsForReceiveAndCarriesImmediate) {
  Completion c[8];
  ASSERT_TRUE(a_->post({0, RdmaOp::kSendImm, 3, 8, true, 9, 0x1a57}).ok());
  EXPECT_EQ(poll(*b_, true, c), 0) << "no receive posted yet: RC retries";
  ASSERT_TRUE(b_->post_recv(0, 2).ok());
  ASSERT_EQ(poll(*b_, true, c), 2);
  EXPECT_FALSE(c[0].has_imm);
  ASSERT_TRUE(b_->post_recv(0, 1).ok());
  ASSERT_EQ(poll(*b_, true, c), 1);
  EXPECT_TRUE(c[0].has_imm) << "the chain's last carries the immediate";
  EXPECT_EQ(c[0].imm, 0x1a57u);
  EXPECT_EQ(c[0].bytes, 8u);
  EXPECT_FALSE(b_->post_recv(0, 5).ok()) << "more than rx_depth receives";
}

TEST_F(LoopbackPair, WriteWithImmediateConsumesAReceive) {
  ASSERT_TRUE(b_->post_recv(1, 1).ok());
  ASSERT_TRUE(a_->post({1, RdmaOp::kWriteImm, 1, 16, true, 3, 42}).ok());
  Completion c[8];
  ASSERT_EQ(poll(*b_, true, c), 1);
  EXPECT_EQ(c[0].qp, 1);
  EXPECT_TRUE(c[0].has_imm);
  EXPECT_EQ(c[0].imm, 42u);
}

TEST_F(LoopbackPair, ConnectChecksThePeer) {
  EndpointInfo wrong = b_->info();
  wrong.qps.pop_back();
  EXPECT_FALSE(a_->connect(wrong).ok());
  wrong = b_->info();
  wrong.rkey += 1000;
  EXPECT_FALSE(a_->connect(wrong).ok());
}

}  // namespace
}  // namespace iofab
