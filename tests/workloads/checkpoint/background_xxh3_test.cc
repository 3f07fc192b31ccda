#include "workloads/checkpoint/background_xxh3.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace iofab::testing {
namespace {

// Blocks fed from two buffers in turn, each refilled as soon as feed() of the other returns (what the
// restore's reader does with its ring): the digest is the one-shot hash of the whole, so the hasher never
// read a buffer after it was refilled.
TEST(BackgroundXxh3, HashesEveryBlockInOrderOneBehindTheCaller) {
  constexpr size_t kBlock = 64 * 1024;
  constexpr size_t kBlocks = 200;
  std::vector<unsigned char> whole(kBlock * kBlocks);
  for (size_t i = 0; i < whole.size(); ++i) whole[i] = static_cast<unsigned char>((i * 131) ^ (i >> 13));
  std::vector<unsigned char> bufs[2] = {std::vector<unsigned char>(kBlock),
                                        std::vector<unsigned char>(kBlock)};
  BackgroundXxh3 hasher;
  for (int round = 0; round < 2; ++round) {  // reset() starts a new hash
    hasher.reset();
    for (size_t b = 0; b < kBlocks; ++b) {
      std::vector<unsigned char>& buf = bufs[b % 2];
      std::memcpy(buf.data(), whole.data() + b * kBlock, kBlock);
      hasher.feed(buf.data(), kBlock);
    }
    EXPECT_EQ(hasher.digest(), xxh3_of(whole.data(), whole.size())) << "round " << round;
  }
  EXPECT_GT(hasher.busy_ns(), 0u);
  // Nothing fed: the hash of no bytes.
  hasher.reset();
  EXPECT_EQ(hasher.digest(), xxh3_of(whole.data(), 0));
}

}  // namespace
}  // namespace iofab::testing
