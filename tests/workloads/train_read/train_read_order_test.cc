// train_read's access orders and big samples, seen from the engine: every
// request the loader makes is recorded with the file it names, so a test can
// say "each file read front to back" or "a 300 MiB sample read whole, in
// pieces no longer than a request may be", not only count samples.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "harness/comm/comm.h"
#include "harness/forwarding_engine.h"
#include "harness/fs/target.h"
#include "harness/store/posix_store.h"
#include "workloads/phase_harness.h"
#include "test_util.h"
#include "workloads/train_read/train_loader.h"
#include "workloads/train_read/train_read_phase.h"

namespace iofab {
namespace {

using nlohmann::json;

struct Request {
  std::string file;  // the name below data/
  uint64_t offset = 0;
  uint32_t len = 0;
  unsigned char head[8] = {};  // the first and last bytes the request read
  unsigned char tail[8] = {};
};

// The requests of every engine the loader makes, in the order each engine was asked.
struct Recording {
  std::mutex mu;
  std::vector<Request> requests;
};

std::string file_name(int fd) {
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  char target[4096];
  const ssize_t n = readlink(link, target, sizeof target - 1);
  if (n <= 0) return "?";
  const std::string path(target, static_cast<size_t>(n));
  const size_t data = path.rfind("/data/");
  return data == std::string::npos ? path : path.substr(data + 6);
}

class RecordingEngine final : public testing::ForwardingEngine {
 public:
  RecordingEngine(std::unique_ptr<Engine> inner, Recording* rec)
      : ForwardingEngine(std::move(inner)), rec_(rec) {}
  Status add_file(int fd, int* index) override {
    Status s = inner_->add_file(fd, index);
    if (s.ok()) names_[*index] = file_name(fd);
    return s;
  }
  QueueResult queue(const IoRequest& req, IoCompletion* done) override {
    const QueueResult q = inner_->queue(req, done);
    // psync completes inside queue(): the bytes are in the buffer now.
    Request r{names_[req.file], req.offset, req.len, {}, {}};
    const auto* buf = static_cast<const unsigned char*>(req.buf);
    if (req.len >= 8) {
      std::memcpy(r.head, buf, 8);
      std::memcpy(r.tail, buf + req.len - 8, 8);
    }
    std::lock_guard<std::mutex> lock(rec_->mu);
    rec_->requests.push_back(r);
    return q;
  }

 private:
  Recording* rec_;
  std::map<int, std::string> names_;
};

EngineFactory recording(Recording* rec) {
  return [rec](const EngineOptions& eo, std::unique_ptr<Engine>* out) {
    std::unique_ptr<Engine> inner;
    Status s = make_engine("psync", eo, &inner);
    if (s.ok()) *out = std::make_unique<RecordingEngine>(std::move(inner), rec);
    return s;
  };
}

class OrderRun {
 public:
  OrderRun() : dir_("/dev/shm") {
    fd_ = open(dir_.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    EXPECT_TRUE(describe_target(dir_.path(), &target_).ok());
  }
  ~OrderRun() { close(fd_); }
  Status run(Phase& phase, PhaseResult* result) {
    PhaseContext ctx{comm_, dir_.path(), target_, stop_, progress_, "train", true};
    std::unique_ptr<Store> store;
    if (Status s = posix_store_at(fd_, dir_.path(), &store); !s.ok()) return s;
    ctx.store = store.get();
    return phase.run(ctx, result);
  }
  std::string data_path(const std::string& file) const { return dir_.path() + "/train/data/" + file; }

 private:
  testing::TempDir dir_;
  int fd_ = -1;
  SelfComm comm_;
  TargetInfo target_;
  std::atomic<bool> stop_{false};
  Progress progress_;
};

// One reader, one request at a time: the recording is the loader's read order.
TrainReadParams sequential(uint64_t samples, uint64_t size, uint64_t per_shard) {
  TrainReadParams p;
  p.dataset.num_samples = samples;
  p.dataset.sample_size = size;
  p.dataset.samples_per_shard = per_shard;
  p.dataset.resolve_size_bounds();
  p.batch_size = 4;
  p.epochs = 2;
  p.read_threads = 1;
  p.queue_depth = 1;
  p.drop_cache = DropCache::kNever;
  return p;
}

// The requests as runs over files: each run's file and whether its offsets only ever grew.
struct FileRun {
  std::string file;
  uint64_t requests = 0;
  bool ascending = true;
};
std::vector<FileRun> runs_of(const std::vector<Request>& reqs) {
  std::vector<FileRun> runs;
  uint64_t last = 0;
  for (const auto& r : reqs) {
    if (runs.empty() || runs.back().file != r.file) {
      runs.push_back({r.file, 0, true});
    } else if (r.offset <= last) {
      runs.back().ascending = false;
    }
    runs.back().requests++;
    last = r.offset;
  }
  return runs;
}

TEST(TrainReadOrder, StreamReadsEveryShardFrontToBackOncePerEpochThroughAShuffleBuffer) {
  TrainReadParams p = sequential(96, 3000, 16);  // 6 shards
  p.reader = ReaderKind::kStream;
  p.file_shuffle = Shuffle::kSeed;
  p.sample_shuffle = Shuffle::kSeed;
  p.shuffle_buffer = 8;
  Recording rec;
  auto phase = make_train_read_phase(p, recording(&rec));
  OrderRun run;
  PhaseResult r;
  ASSERT_TRUE(run.run(*phase, &r).ok());
  EXPECT_EQ(r.metrics["corrupt_samples"], 0);
  EXPECT_TRUE(r.details["every_sample_once"].get<bool>());
  const std::vector<FileRun> runs = runs_of(rec.requests);
  ASSERT_EQ(runs.size(), 12u);  // 6 shards, 2 epochs, each shard one unbroken run
  for (const auto& fr : runs) {
    EXPECT_TRUE(fr.ascending) << fr.file;
    EXPECT_EQ(fr.requests, 16u) << fr.file;
  }
  std::set<std::string> epoch0, epoch1;
  for (size_t i = 0; i < 6; ++i) epoch0.insert(runs[i].file);
  for (size_t i = 6; i < 12; ++i) epoch1.insert(runs[i].file);
  EXPECT_EQ(epoch0.size(), 6u);
  EXPECT_EQ(epoch1.size(), 6u);
  // File shuffle: the two epochs visit the shards in different orders.
  bool same = true;
  for (size_t i = 0; i < 6; ++i) same = same && runs[i].file == runs[6 + i].file;
  EXPECT_FALSE(same);
  EXPECT_EQ(r.details["order"]["reader"], "stream");
  EXPECT_EQ(r.details["order"]["shuffle_buffer"], 8);
}

TEST(TrainReadOrder, FileShuffleWithoutSampleShuffleReadsEachShardWhole) {
  TrainReadParams p = sequential(64, 5000, 8);  // 8 shards
  p.file_shuffle = Shuffle::kSeed;
  p.sample_shuffle = Shuffle::kOff;
  Recording rec;
  auto phase = make_train_read_phase(p, recording(&rec));
  OrderRun run;
  PhaseResult r;
  ASSERT_TRUE(run.run(*phase, &r).ok());
  const std::vector<FileRun> runs = runs_of(rec.requests);
  ASSERT_EQ(runs.size(), 16u);
  for (const auto& fr : runs) {
    EXPECT_TRUE(fr.ascending) << fr.file;
    EXPECT_EQ(fr.requests, 8u) << fr.file;
  }
  EXPECT_NE(runs[0].file, "shard-000000");  // seed 1's first epoch does not start with shard 0
}

TEST(TrainReadOrder, DefaultSampleShuffleScattersShards) {
  TrainReadParams p = sequential(64, 5000, 8);
  Recording rec;
  auto phase = make_train_read_phase(p, recording(&rec));
  OrderRun run;
  PhaseResult r;
  ASSERT_TRUE(run.run(*phase, &r).ok());
  EXPECT_GT(runs_of(rec.requests).size(), 64u);  // far more runs than 16 whole-shard visits
}

TEST(TrainReadOrder, RandomShufflesDrawTheirSeedPerRunAndStillReadEverySampleOnce) {
  TrainReadParams p = sequential(64, 3000, 8);
  p.reader = ReaderKind::kStream;
  p.file_shuffle = Shuffle::kRandom;
  p.sample_shuffle = Shuffle::kRandom;
  p.shuffle_buffer = 4;
  uint64_t seeds[2] = {0, 0};
  for (uint64_t& seed : seeds) {
    Recording rec;
    auto phase = make_train_read_phase(p, recording(&rec));
    OrderRun run;
    PhaseResult r;
    ASSERT_TRUE(run.run(*phase, &r).ok());
    EXPECT_TRUE(r.details["every_sample_once"].get<bool>());
    seed = r.details["order"]["seed"].get<uint64_t>();
  }
  // Two runs drawing the same 64-bit seed would be a broken draw, not chance.
  EXPECT_NE(seeds[0], seeds[1]);
}

TEST(TrainReadOrder, SamplesPast256MiBAreReadWholeInPiecesAndVerified) {
  // Two samples of 300 MiB + 5 bytes (one file each): each is read as a 256 MiB request and the rest.
  const uint64_t size = (300ULL << 20) + 5;
  TrainReadParams p = sequential(2, size, 1);
  p.dataset.layout = DatasetLayoutKind::kFiles;
  p.batch_size = 1;
  p.epochs = 1;
  p.prefetch = 1;
  Recording rec;
  auto phase = make_train_read_phase(p, recording(&rec));
  OrderRun run;
  PhaseResult r;
  ASSERT_TRUE(run.run(*phase, &r).ok());
  EXPECT_TRUE(r.details["verified"].get<bool>());
  EXPECT_EQ(r.metrics["corrupt_samples"], 0);
  EXPECT_EQ(r.metrics["samples"], 2);
  EXPECT_DOUBLE_EQ(r.metrics["read_bytes"], 2.0 * static_cast<double>(size));

  std::map<std::string, std::vector<Request>> by_file;
  for (const auto& q : rec.requests) by_file[q.file].push_back(q);
  ASSERT_EQ(by_file.size(), 2u);
  for (const auto& [file, reqs] : by_file) {
    ASSERT_EQ(reqs.size(), 2u) << file;
    EXPECT_EQ(reqs[0].offset, 0u);
    EXPECT_EQ(reqs[0].len, kMaxRequestBytes);
    EXPECT_EQ(reqs[1].offset, kMaxRequestBytes);
    EXPECT_EQ(reqs[1].len, size - kMaxRequestBytes);
    // The bytes each piece brought back are the file's bytes at its offsets.
    const int fd = open(run.data_path(file).c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0) << run.data_path(file);
    for (const auto& q : reqs) {
      unsigned char head[8], tail[8];
      ASSERT_EQ(pread(fd, head, 8, static_cast<off_t>(q.offset)), 8);
      ASSERT_EQ(pread(fd, tail, 8, static_cast<off_t>(q.offset + q.len - 8)), 8);
      EXPECT_EQ(std::memcmp(head, q.head, 8), 0) << file << " at " << q.offset;
      EXPECT_EQ(std::memcmp(tail, q.tail, 8), 0) << file << " at " << q.offset + q.len - 8;
    }
    close(fd);
  }
}

TEST(TrainReadOrder, BadOrderParamsNameTheFieldAndTheExpectedForm) {
  struct Case {
    json params;
    std::string want;
  };
  const std::vector<Case> cases = {
      {{{"reader", "tfrecord"}}, "phases[0].reader"},
      {{{"file_shuffle", "yes"}}, "phases[0].file_shuffle"},
      {{{"sample_shuffle", 1}}, "phases[0].sample_shuffle"},
      {{{"shuffle_buffer", 8}}, "applies only to reader: stream"},
      {{{"reader", "stream"}, {"sample_shuffle", "off"}, {"shuffle_buffer", 8}}, "needs sample_shuffle"},
      {{{"reader", "stream"}, {"shuffle_buffer", 0}}, "phases[0].shuffle_buffer"},
      {{{"mlperf", "yes"}}, "phases[0].mlperf"},
      {{{"sample_size", "2GiB"}}, "phases[0].sample_size"},
  };
  for (const auto& c : cases) {
    std::string errors;
    EXPECT_EQ(testing::PhaseHarness::parse("train_read", c.params, &errors), nullptr) << c.params.dump();
    EXPECT_NE(errors.find(c.want), std::string::npos) << c.params.dump() << ": " << errors;
  }
  std::string errors;
  EXPECT_NE(
      testing::PhaseHarness::parse("train_read", {{"reader", "stream"}, {"shuffle_buffer", 8}}, &errors),
      nullptr)
      << errors;
}

}  // namespace
}  // namespace iofab
