// Access orders of MLPerf Storage's readers: file shuffle apart from sample
// shuffle, streaming files split per rank, each front to back, and the
// shuffle buffer's consumption order.
#include "workloads/train_read/epoch_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

namespace iofab {
namespace {

EpochOrder order(uint64_t n, uint64_t per_file, ReaderKind reader, Shuffle files, Shuffle samples) {
  EpochOrder o;
  o.num_samples = n;
  o.samples_per_file = per_file;
  o.reader = reader;
  o.file_shuffle = files;
  o.sample_shuffle = samples;
  o.seed = 7;
  return o;
}

std::vector<uint32_t> all_ranks(const EpochOrder& o, uint64_t epoch, int ranks) {
  std::vector<uint32_t> all;
  for (int r = 0; r < ranks; ++r) {
    const BatchPlan p = plan_ordered_epoch(o, epoch, r, ranks, 4, false);
    all.insert(all.end(), p.samples.begin(), p.samples.end());
  }
  return all;
}

void expect_each_once(std::vector<uint32_t> v, uint64_t n) {
  ASSERT_EQ(v.size(), n);
  std::sort(v.begin(), v.end());
  for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(v[i], i);
}

TEST(EpochOrder, NoShuffleReadsInOrderInContiguousRankBlocks) {
  const EpochOrder o = order(10, 3, ReaderKind::kMap, Shuffle::kOff, Shuffle::kOff);
  // 10 samples over 3 ranks: blocks of ceil(10/3) = 4.
  EXPECT_EQ(plan_ordered_epoch(o, 0, 0, 3, 2, false).samples, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(plan_ordered_epoch(o, 1, 1, 3, 2, false).samples, (std::vector<uint32_t>{4, 5, 6, 7}));
  EXPECT_EQ(plan_ordered_epoch(o, 0, 2, 3, 2, false).samples, (std::vector<uint32_t>{8, 9}));
}

TEST(EpochOrder, FileShuffleWithoutSampleShuffleKeepsAFilesSamplesTogetherAndInOrder) {
  const uint64_t per = 5;
  const EpochOrder o = order(100, per, ReaderKind::kMap, Shuffle::kSeed, Shuffle::kOff);
  const std::vector<uint32_t> seq = all_ranks(o, 0, 1);
  expect_each_once(seq, 100);
  // Every run of `per` starts a file and walks it front to back.
  for (size_t i = 0; i < seq.size(); i += per) {
    EXPECT_EQ(seq[i] % per, 0u) << "position " << i;
    for (size_t k = 1; k < per; ++k) EXPECT_EQ(seq[i + k], seq[i] + k) << "position " << i + k;
  }
  // The files really were shuffled, and differently in the next epoch.
  EXPECT_NE(seq[0], 0u);
  EXPECT_NE(seq, all_ranks(o, 1, 1));
  EXPECT_EQ(seq, all_ranks(o, 0, 1));
}

TEST(EpochOrder, FileShuffleSplitsRanksAtFileBoundariesWhenTheyDivide) {
  const EpochOrder o = order(120, 10, ReaderKind::kMap, Shuffle::kSeed, Shuffle::kOff);
  expect_each_once(all_ranks(o, 3, 4), 120);
  // 30 samples a rank, 3 whole files each: no file is shared by two ranks.
  std::set<uint32_t> seen_files;
  for (int r = 0; r < 4; ++r) {
    std::set<uint32_t> mine;
    for (uint32_t s : plan_ordered_epoch(o, 3, r, 4, 4, false).samples) mine.insert(s / 10);
    EXPECT_EQ(mine.size(), 3u);
    for (uint32_t f : mine) EXPECT_TRUE(seen_files.insert(f).second) << "file " << f << " on two ranks";
  }
}

TEST(EpochOrder, SampleShuffleIsTheGlobalPermutation) {
  const EpochOrder o = order(64, 8, ReaderKind::kMap, Shuffle::kSeed, Shuffle::kSeed);
  EXPECT_EQ(plan_ordered_epoch(o, 2, 1, 2, 4, false).samples, plan_epoch(64, 7, 2, 1, 2, 4, false).samples);
}

TEST(EpochOrder, StreamSplitsFilesPerRankAndReadsEachFrontToBack) {
  const uint64_t per = 6;
  EpochOrder o = order(60, per, ReaderKind::kStream, Shuffle::kSeed, Shuffle::kOff);
  const std::vector<uint32_t> files = epoch_file_order(o, 0);
  ASSERT_EQ(files.size(), 10u);
  for (int r = 0; r < 3; ++r) {
    const BatchPlan p = plan_ordered_epoch(o, 0, r, 3, 4, false);
    EXPECT_TRUE(p.consume.empty());
    std::vector<uint32_t> want;
    for (size_t k = static_cast<size_t>(r); k < files.size(); k += 3) {
      for (uint32_t s = files[k] * per; s < (files[k] + 1) * per; ++s) want.push_back(s);
    }
    EXPECT_EQ(p.samples, want) << "rank " << r;
  }
  expect_each_once(all_ranks(o, 0, 3), 60);
}

TEST(EpochOrder, StreamWithABufferOfOneConsumesInFileOrder) {
  EpochOrder o = order(40, 10, ReaderKind::kStream, Shuffle::kOff, Shuffle::kSeed);
  o.shuffle_buffer = 1;
  const BatchPlan p = plan_ordered_epoch(o, 0, 0, 1, 4, false);
  std::vector<uint32_t> in_order(40);
  std::iota(in_order.begin(), in_order.end(), 0u);
  EXPECT_EQ(p.samples, in_order);
  for (uint64_t i = 0; i < 40; ++i) EXPECT_EQ(p.consumed_at(i), i);
  EXPECT_EQ(p.lookahead, 0u);
}

TEST(EpochOrder, StreamShuffleBufferReadsInFileOrderButConsumesShuffled) {
  EpochOrder o = order(200, 50, ReaderKind::kStream, Shuffle::kOff, Shuffle::kSeed);
  o.shuffle_buffer = 16;
  const BatchPlan p = plan_ordered_epoch(o, 0, 0, 1, 8, false);
  std::vector<uint32_t> in_order(200);
  std::iota(in_order.begin(), in_order.end(), 0u);
  EXPECT_EQ(p.samples, in_order);  // the reads stay sequential
  EXPECT_EQ(p.lookahead, 15u);
  expect_each_once(p.consume, 200);
  size_t moved = 0;
  for (uint64_t i = 0; i < 200; ++i) moved += p.consume[i] != i;
  EXPECT_GT(moved, 100u);
}

TEST(EpochOrder, ShuffleBufferNeverOutputsASampleBeforeItCouldHaveBeenRead) {
  for (uint64_t buffer : {2ull, 3ull, 17ull, 1000ull}) {
    const std::vector<uint32_t> place = shuffle_buffer_order(300, buffer, 11);
    expect_each_once(place, 300);
    // Output k draws from the first k + buffer inputs: input i comes out at k >= i - (buffer - 1).
    for (uint64_t i = 0; i < place.size(); ++i) {
      EXPECT_GE(place[i] + buffer - 1, i) << "buffer " << buffer << " input " << i;
    }
  }
}

TEST(EpochOrder, StreamDropLastTrimsTheTailBeforeTheBuffer) {
  EpochOrder o = order(30, 10, ReaderKind::kStream, Shuffle::kOff, Shuffle::kSeed);
  o.shuffle_buffer = 4;
  const BatchPlan p = plan_ordered_epoch(o, 0, 0, 1, 8, true);
  EXPECT_EQ(p.samples.size(), 24u);
  expect_each_once(p.consume, 24);
}

TEST(EpochOrder, StreamInterleaveReadsSeveralFilesAtOnceEachFrontToBack) {
  EpochOrder o = order(14, 4, ReaderKind::kStream, Shuffle::kOff, Shuffle::kOff);  // files of 4, 4, 4, 2
  o.interleave = 2;
  const BatchPlan p = plan_ordered_epoch(o, 0, 0, 1, 4, false);
  // Files 0 and 1 in turn; file 2 takes file 0's place, file 3 file 1's.
  EXPECT_EQ(p.samples, (std::vector<uint32_t>{0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 11}));
}

TEST(EpochOrder, NamesRoundTheEnums) {
  EXPECT_STREQ(shuffle_name(Shuffle::kRandom), "random");
  EXPECT_STREQ(reader_kind_name(ReaderKind::kStream), "stream");
}

}  // namespace
}  // namespace iofab

namespace iofab {
namespace {

// DLIO's PyTorch order (argonne-lcf/dlio_benchmark, branch mlperf_storage_v2.0): dlio_sampler
// (data_loader/torch_data_loader.py lines 88-107) gives rank r the indices
// [r x ceil(n / ranks), (r + 1) x ceil(n / ranks)) in order, every epoch, whatever the shuffles; the
// DataLoader drops a short last batch (drop_last=True, line 148) and main.py's _train stops after
// floor(n / batch / ranks) steps (line 319).
TEST(EpochOrderDlioTorch, EachRankItsFixedBlockInIndexOrderEveryEpoch) {
  EpochOrder o = order(14, 1, ReaderKind::kMap, Shuffle::kSeed, Shuffle::kSeed);
  o.kind = OrderKind::kDlioTorch;
  // 14 samples, 2 ranks, batch 3: blocks of 7, floor(14 / 3 / 2) = 2 steps -> 6 samples each.
  for (uint64_t epoch : {0u, 1u, 4u}) {
    const BatchPlan r0 = plan_ordered_epoch(o, epoch, 0, 2, 3, false);
    const BatchPlan r1 = plan_ordered_epoch(o, epoch, 1, 2, 3, false);
    EXPECT_EQ(r0.samples, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5})) << epoch;
    EXPECT_EQ(r1.samples, (std::vector<uint32_t>{7, 8, 9, 10, 11, 12})) << epoch;
    EXPECT_EQ(r0.batches(), 2u);
  }
  // 10 samples, 3 ranks, batch 2: blocks of 4 (the last of 2), floor(10 / 2 / 3) = 1 step each.
  o.num_samples = 10;
  EXPECT_EQ(plan_ordered_epoch(o, 0, 0, 3, 2, false).samples, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(plan_ordered_epoch(o, 0, 1, 3, 2, false).samples, (std::vector<uint32_t>{4, 5}));
  EXPECT_EQ(plan_ordered_epoch(o, 0, 2, 3, 2, false).samples, (std::vector<uint32_t>{8, 9}));
  // The preset at its scaled size: 21 samples, one rank, batch 7: all of them, 3 steps, in order.
  o.num_samples = 21;
  const BatchPlan one = plan_ordered_epoch(o, 3, 0, 1, 7, false);
  ASSERT_EQ(one.samples.size(), 21u);
  for (uint32_t i = 0; i < 21; ++i) EXPECT_EQ(one.samples[i], i);
  // The default order with the same shuffles draws a new permutation every epoch.
  o.kind = OrderKind::kDefault;
  EXPECT_NE(plan_ordered_epoch(o, 0, 0, 1, 7, false).samples,
            plan_ordered_epoch(o, 1, 0, 1, 7, false).samples);
}

}  // namespace
}  // namespace iofab
