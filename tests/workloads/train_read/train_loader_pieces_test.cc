// The loader's pieces, small: with a 4 KiB request limit, samples at
// unaligned offsets inside shards are read as runs of requests that cover
// each sample exactly, in order, and every sample is still verified once.
// (train_read_order_test reads real 300 MiB samples against the real limit.)
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "harness/engines/io_driver.h"
#include "harness/forwarding_engine.h"
#include "harness/store/posix_store.h"
#include "test_util.h"
#include "workloads/dataset/dataset.h"
#include "workloads/train_read/sampler.h"
#include "workloads/train_read/train_loader.h"

namespace iofab {
namespace {

struct Piece {
  int file;
  uint64_t offset;
  uint32_t len;
};

class PieceRecorder final : public testing::ForwardingEngine {
 public:
  PieceRecorder(std::unique_ptr<Engine> inner, std::mutex* mu, std::vector<Piece>* out)
      : ForwardingEngine(std::move(inner)), mu_(mu), out_(out) {}
  QueueResult queue(const IoRequest& req, IoCompletion* done) override {
    {
      std::lock_guard<std::mutex> lock(*mu_);
      out_->push_back({req.file, req.offset, req.len});
    }
    return inner_->queue(req, done);
  }

 private:
  std::mutex* mu_;
  std::vector<Piece>* out_;
};

TEST(TrainLoaderPieces, SmallRequestLimitSplitsEverySampleIntoExactCoveringPieces) {
  testing::TempDir dir("/dev/shm");
  std::unique_ptr<Store> store;
  ASSERT_TRUE(open_posix_store(dir.path(), false, &store).ok());
  ASSERT_TRUE(store->make_folder("data").ok());

  DatasetSpec spec;
  spec.layout = DatasetLayoutKind::kShards;
  spec.num_samples = 40;
  spec.sample_size = 10000;  // not a multiple of 4 KiB: samples start at unaligned offsets
  spec.distribution = SizeDistribution::kNormal;
  spec.sample_size_stdev = 3000;
  spec.samples_per_shard = 40;  // one shard: requests are told apart by offset alone
  spec.resolve_size_bounds();
  const DatasetLayout layout(spec);
  uint64_t written = 0;
  ASSERT_TRUE(generate_dataset_part(*store, "data", layout, GenerateOptions{}, &written).ok());

  std::mutex mu;
  std::vector<Piece> pieces;
  EngineFactory make = [&](const EngineOptions& eo, std::unique_ptr<Engine>* out) {
    std::unique_ptr<Engine> inner;
    Status s = make_engine("psync", eo, &inner);
    if (s.ok()) *out = std::make_unique<PieceRecorder>(std::move(inner), &mu, &pieces);
    return s;
  };
  LoaderConfig lc;
  lc.read_threads = 2;
  lc.queue_depth = 4;
  lc.max_request = 4096;
  std::unique_ptr<TrainLoader> loader;
  ASSERT_TRUE(TrainLoader::create(lc, layout, *store, "data", make, nullptr, &loader).ok());

  const BatchPlan plan = plan_epoch(40, 3, 0, 0, 1, 8, false);
  std::atomic<bool> stop{false};
  EpochStats stats;
  ASSERT_TRUE(loader->run_epoch(plan, now_ns(), stop, nullptr, &stats).ok());
  EXPECT_EQ(stats.corrupt, 0u);
  EXPECT_EQ(stats.id_count, 40u);
  EXPECT_EQ(stats.reads.bytes, layout.sample_bytes());
  EXPECT_EQ(stats.io_bytes, layout.sample_bytes());  // buffered: the pieces read exactly the samples

  // Each sample [offset, offset + size) is covered by pieces of at most 4 KiB, back to back.
  std::map<uint64_t, uint32_t> by_offset;
  for (const auto& p : pieces) {
    EXPECT_LE(p.len, 4096u);
    EXPECT_TRUE(by_offset.emplace(p.offset, p.len).second) << "offset " << p.offset << " read twice";
  }
  uint64_t expected_pieces = 0;
  for (uint64_t s = 0; s < 40; ++s) {
    uint64_t at = layout.offset_of(s);
    const uint64_t end = at + layout.size_of(s);
    while (at < end) {
      auto it = by_offset.find(at);
      ASSERT_NE(it, by_offset.end()) << "sample " << s << ": no piece at " << at;
      EXPECT_EQ(it->second, std::min<uint64_t>(4096, end - at)) << "sample " << s;
      at += it->second;
      ++expected_pieces;
    }
  }
  EXPECT_EQ(pieces.size(), expected_pieces);
  EXPECT_GT(pieces.size(), 80u);  // 40 samples of ~10 KB: about 3 pieces each
}

}  // namespace
}  // namespace iofab
