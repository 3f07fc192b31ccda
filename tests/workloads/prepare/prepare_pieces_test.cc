// The prepare phase's pieces on their own: the tar format, the bounded
// queue, the transforms and the bound_by rule on hand-made stage figures.
#include <gtest/gtest.h>
#include <zstd.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "workloads/prepare/prepare_bound.h"
#include "workloads/prepare/prepare_queue.h"
#include "workloads/prepare/prepare_tar.h"
#include "workloads/prepare/prepare_transform.h"

namespace iofab {
namespace {

// An archive of members named and filled as given, ended as ShardWriter ends one.
std::vector<unsigned char> make_archive(const std::vector<std::pair<std::string, std::string>>& members) {
  std::vector<unsigned char> a;
  for (const auto& [name, data] : members) {
    unsigned char h[kTarBlock];
    EXPECT_TRUE(tar_member_header(name, data.size(), h).ok());
    a.insert(a.end(), h, h + kTarBlock);
    a.insert(a.end(), data.begin(), data.end());
    a.resize(a.size() + tar_padding(data.size()), 0);
  }
  a.resize(a.size() + kTarEnd, 0);
  return a;
}

TEST(PrepareTar, MembersReadBackWithTheirNamesAndBytes) {
  const std::vector<std::pair<std::string, std::string>> members = {
      {"000000000.zst", "abc"}, {"000000001.zst", std::string(512, 'x')}, {"000000007.zst", ""}};
  std::vector<unsigned char> a = make_archive(members);
  a.resize(a.size() + 4096 - a.size() % 4096, 0);  // an O_DIRECT tail of zeros
  std::vector<TarMember> got;
  ASSERT_TRUE(parse_tar(a, &got).ok());
  ASSERT_EQ(got.size(), members.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].name, members[i].first);
    EXPECT_EQ(std::string(a.begin() + static_cast<long>(got[i].offset),
                          a.begin() + static_cast<long>(got[i].offset + got[i].size)),
              members[i].second);
  }
  EXPECT_EQ(tar_member_bytes(3), 1024u);
  EXPECT_EQ(tar_member_bytes(512), 1024u);
  EXPECT_EQ(tar_member_bytes(0), 512u);
}

TEST(PrepareTar, ADamagedHeaderOrALongNameIsRefused) {
  std::vector<unsigned char> a = make_archive({{"a.bin", "hello"}});
  a[10] ^= 1;
  std::vector<TarMember> got;
  Status s = parse_tar(a, &got);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("checksum"), std::string::npos) << s.message();
  unsigned char h[kTarBlock];
  EXPECT_FALSE(tar_member_header(std::string(100, 'n'), 1, h).ok());
  EXPECT_FALSE(tar_member_header("", 1, h).ok());
}

TEST(PrepareQueue, NeverHoldsMoreThanItsBoundAndDrainsAfterClose) {
  BoundedQueue<int> q(3);
  constexpr int kPerProducer = 2000;
  std::vector<std::thread> producers;
  for (int p = 0; p < 4; ++p) {
    producers.emplace_back([&q, p] {
      uint64_t waited = 0;
      for (int i = 0; i < kPerProducer; ++i) ASSERT_TRUE(q.push(p * kPerProducer + i, &waited));
    });
  }
  std::vector<int> seen(4 * kPerProducer, 0);
  std::thread consumer([&] {
    uint64_t waited = 0;
    int v = 0;
    while (q.pop(&v, &waited)) seen[static_cast<size_t>(v)]++;
  });
  for (auto& t : producers) t.join();
  q.close();
  consumer.join();
  EXPECT_LE(q.high_water(), 3u);
  for (int c : seen) ASSERT_EQ(c, 1);
}

TEST(PrepareQueue, CancelReleasesAWaitingProducerAndConsumer) {
  BoundedQueue<int> full(1);
  uint64_t waited = 0;
  ASSERT_TRUE(full.push(1, &waited));
  std::atomic<int> push_result{-1};
  std::thread producer([&] { push_result = full.push(2, &waited) ? 1 : 0; });
  BoundedQueue<int> empty(1);
  std::atomic<int> pop_result{-1};
  std::thread consumer([&] {
    uint64_t w = 0;
    int v = 0;
    pop_result = empty.pop(&v, &w) ? 1 : 0;
  });
  full.cancel();
  empty.cancel();
  producer.join();
  consumer.join();
  EXPECT_EQ(push_result.load(), 0);
  EXPECT_EQ(pop_result.load(), 0);
}

TEST(PrepareTransform, ZstdOutputDecompressesToTheInput) {
  std::vector<unsigned char> in(100'000);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>((i * 7) % 251 / 3);
  for (int level : {1, 9}) {
    std::unique_ptr<SampleTransform> t;
    ASSERT_TRUE(SampleTransform::create({TransformKind::kZstd, level, 0}, &t).ok());
    std::vector<unsigned char> out(t->max_output(in.size()));
    size_t n = 0;
    ASSERT_TRUE(t->apply(in.data(), in.size(), out.data(), out.size(), &n).ok());
    EXPECT_LT(n, in.size()) << "a repetitive input compresses";
    std::vector<unsigned char> back(in.size());
    const size_t r = ZSTD_decompress(back.data(), back.size(), out.data(), n);
    ASSERT_FALSE(ZSTD_isError(r)) << ZSTD_getErrorName(r);
    EXPECT_EQ(r, in.size());
    EXPECT_EQ(back, in);
    EXPECT_STREQ(t->extension(), "zst");
  }
}

TEST(PrepareTransform, BusySpendsAtLeastItsCpuPerMibAndPassesTheBytesOn) {
  std::vector<unsigned char> in(1 << 20, 0x5a);
  std::unique_ptr<SampleTransform> t;
  ASSERT_TRUE(SampleTransform::create({TransformKind::kBusy, 0, 0.02}, &t).ok());
  std::vector<unsigned char> out(t->max_output(in.size()));
  size_t n = 0;
  const uint64_t cpu0 = thread_cpu_ns();
  ASSERT_TRUE(t->apply(in.data(), in.size(), out.data(), out.size(), &n).ok());
  // The loop ends when this thread's CPU clock has passed 20 ms: CPU time, whatever the machine's load.
  EXPECT_GE(thread_cpu_ns() - cpu0, 20'000'000u);
  EXPECT_EQ(n, in.size());
  EXPECT_EQ(out, in);
}

StageFigures stage(double busy, double wait_input, double wait_room) {
  StageFigures f;
  f.threads = 1;
  f.thread_seconds = 10;
  f.busy_seconds = busy * 10;
  f.wait_input_seconds = wait_input * 10;
  f.wait_room_seconds = wait_room * 10;
  return f;
}

TEST(PrepareBound, TheBusiestStageBoundsThePipeline) {
  // Readers always in I/O, transformers and writers starved.
  EXPECT_EQ(decide_bound_by(stage(0.97, 0, 0.01), stage(0.30, 0.70, 0), stage(0.05, 0.95, 0)).stage, "read");
  // Transformers always busy, readers blocked on a full queue, writers starved.
  BoundBy cpu = decide_bound_by(stage(0.10, 0, 0.88), stage(0.98, 0.01, 0.01), stage(0.08, 0.92, 0));
  EXPECT_EQ(cpu.stage, "transform");
  EXPECT_EQ(cpu.label, "CPU (transform)");
  EXPECT_NE(cpu.why.find("transform 98%"), std::string::npos) << cpu.why;
  // Writers always writing, everything before them held.
  BoundBy write = decide_bound_by(stage(0.05, 0, 0.94), stage(0.10, 0.01, 0.89), stage(0.99, 0.01, 0));
  EXPECT_EQ(write.stage, "write");
  EXPECT_EQ(write.label, "storage write");
}

TEST(PrepareBound, ATieGoesToTheStageItsNeighboursWaitedOn) {
  // Read and transform equally busy; the writers starved waiting for transform, readers never held.
  EXPECT_EQ(decide_bound_by(stage(0.90, 0, 0), stage(0.91, 0.05, 0), stage(0.2, 0.8, 0)).stage, "transform");
  // The same busy fractions, but the transformers waited for input: the readers bound it.
  EXPECT_EQ(decide_bound_by(stage(0.91, 0, 0), stage(0.90, 0.6, 0), stage(0.2, 0.0, 0)).stage, "read");
}

TEST(PrepareBound, NoStageBusyHalfItsTimeIsNone) {
  BoundBy b = decide_bound_by(stage(0.2, 0, 0.1), stage(0.3, 0.5, 0), stage(0.1, 0.8, 0));
  EXPECT_EQ(b.stage, "none");
  EXPECT_EQ(decide_bound_by(StageFigures{}, StageFigures{}, StageFigures{}).stage, "none");
}

}  // namespace
}  // namespace iofab
