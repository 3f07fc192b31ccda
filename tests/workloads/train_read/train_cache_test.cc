// train_read's local cache tier (cache_dir) in-process on one rank: later
// epochs read nothing from the source, every sample is still verified, a
// cache too small serves part and says so, the source-only epoch reads the
// source alone, the cache's folder goes at the end (and stays with --keep),
// and bad params name the field. Reads are counted by an engine that tells
// the source's files from the cache's by their paths, apart from the
// loader's own bookkeeping.
#include "workloads/train_read/train_cache.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <thread>
#include <unordered_map>

#include "harness/comm/comm.h"
#include "harness/forwarding_engine.h"
#include "harness/fs/run_dir.h"
#include "harness/fs/target.h"
#include "harness/store/posix_store.h"
#include "test_util.h"
#include "workloads/phase_harness.h"
#include "workloads/phase_run.h"
#include "workloads/train_read/train_read_phase.h"

namespace iofab {
namespace {

using nlohmann::json;
using testing::PhaseRun;

// The run folder on the disk: the source stands apart from the cache (on tmpfs in most tests).
constexpr const char* kRunBase = "/var/tmp";
namespace fs = std::filesystem;

// Bytes read, by where the file read lives; shared by every reader's engine.
struct ReadCounts {
  std::string cache_prefix;  // a file below it is the cache's; any other is the source's
  std::atomic<uint64_t> source_bytes{0};
  std::atomic<uint64_t> cache_bytes{0};
  std::atomic<int> corrupt_source_reads{0};  // flip the first byte of this many source reads
  std::atomic<bool> corrupt_cache_reads{false};
};

// psync, counting each read against the source or the cache, and corrupting on request.
class CountingEngine final : public testing::ForwardingEngine {
 public:
  CountingEngine(std::unique_ptr<Engine> inner, std::shared_ptr<ReadCounts> counts)
      : ForwardingEngine(std::move(inner)), counts_(std::move(counts)) {}
  Status add_file(int fd, int* index) override {
    Status s = inner_->add_file(fd, index);
    if (!s.ok()) return s;
    char target[4096];
    const ssize_t n = readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), target, sizeof target - 1);
    const std::string path = n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string();
    is_cache_[*index] = path.starts_with(counts_->cache_prefix + "/");
    return s;
  }
  QueueResult queue(const IoRequest& req, IoCompletion* done) override {
    QueueResult q = inner_->queue(req, done);
    if (q != QueueResult::kCompleted || done->result <= 0 || req.op != IoOp::kRead) return q;
    const bool cache = is_cache_[req.file];
    (cache ? counts_->cache_bytes : counts_->source_bytes) += static_cast<uint64_t>(done->result);
    bool flip = cache && counts_->corrupt_cache_reads.load();
    if (!cache && req.offset % 4096 == 0) flip = counts_->corrupt_source_reads.fetch_sub(1) > 0;
    if (flip) static_cast<unsigned char*>(req.buf)[0] ^= 0xff;
    return q;
  }

 private:
  std::shared_ptr<ReadCounts> counts_;
  std::unordered_map<int, bool> is_cache_;
};

EngineFactory counting(std::shared_ptr<ReadCounts> counts) {
  return [counts](const EngineOptions& eo, std::unique_ptr<Engine>* out) {
    std::unique_ptr<Engine> inner;
    Status s = make_engine("psync", eo, &inner);
    if (s.ok()) *out = std::make_unique<CountingEngine>(std::move(inner), counts);
    return s;
  };
}

// 256 samples of 4 KiB (one cache block each), 2 epochs, every read buffered.
TrainReadParams small(const std::string& cache_dir, DatasetLayoutKind layout = DatasetLayoutKind::kShards) {
  TrainReadParams p;
  p.dataset.layout = layout;
  p.dataset.num_samples = 256;
  p.dataset.sample_size = 4096;
  p.dataset.samples_per_shard = 64;
  p.dataset.files_per_dir = 64;
  p.dataset.resolve_size_bounds();
  p.batch_size = 16;
  p.epochs = 2;
  p.read_threads = 2;
  p.queue_depth = 4;
  p.engine = "psync";
  p.cache_dir = cache_dir;
  p.drop_cache = DropCache::kEveryEpoch;
  return p;
}
constexpr uint64_t kDatasetBytes = 256 * 4096;

// Regular files anywhere below dir.
std::vector<std::string> files_below(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.push_back(e.path().string());
  }
  return out;
}

class TrainCache : public ::testing::TestWithParam<DatasetLayoutKind> {};

TEST_P(TrainCache, LaterEpochsReadNothingFromTheSourceAndEverySampleIsVerified) {
  testing::TempDir cache("/dev/shm");
  auto counts = std::make_shared<ReadCounts>();
  counts->cache_prefix = cache.path();
  TrainReadParams p = small(cache.path(), GetParam());
  p.epochs = 3;
  p.cache_source_epoch = false;
  auto phase = make_train_read_phase(p, counting(counts));
  PhaseRun run(kRunBase);
  PhaseResult r;
  Status s = run.run(*phase, &r);
  ASSERT_TRUE(s.ok()) << s.message();

  // The engine saw the source read once (epoch 0) and the cache twice: nothing else.
  EXPECT_EQ(counts->source_bytes.load(), kDatasetBytes);
  EXPECT_EQ(counts->cache_bytes.load(), 2 * kDatasetBytes);
  EXPECT_EQ(r.metrics["source_read_bytes"], kDatasetBytes);
  EXPECT_EQ(r.metrics["cache_read_bytes"], 2 * kDatasetBytes);
  EXPECT_EQ(r.metrics["cache_fill_bytes"], kDatasetBytes);
  EXPECT_EQ(r.metrics["dataset_read_bytes"], kDatasetBytes);
  EXPECT_EQ(r.metrics["cache_hit_fraction"], 1.0);
  EXPECT_EQ(r.metrics.count("au_source_only"), 0u) << "no source-only epoch was asked for";
  EXPECT_TRUE(r.details["verified"].get<bool>());
  EXPECT_TRUE(r.details["every_sample_once"].get<bool>());
  EXPECT_EQ(r.metrics["corrupt_samples"], 0);
  const json& epochs = r.details["epochs"];
  ASSERT_EQ(epochs.size(), 3u);
  EXPECT_EQ(epochs[0]["cache_tier"]["source_bytes"], kDatasetBytes);
  EXPECT_EQ(epochs[0]["cache_tier"]["filled_samples"], 256);
  for (int e = 1; e < 3; ++e) {
    EXPECT_EQ(epochs[e]["cache_tier"]["source_bytes"], 0) << e;
    EXPECT_EQ(epochs[e]["cache_tier"]["cache_samples"], 256) << e;
    EXPECT_EQ(epochs[e]["cache_tier"]["cached_files"], 256) << e;
    EXPECT_TRUE(epochs[e]["cache_tier"]["dropped"].get<bool>()) << e;
  }
  // Gone at the end: nothing of the run is left in cache_dir.
  EXPECT_TRUE(testing::list_files(cache.path()).empty());
}

INSTANTIATE_TEST_SUITE_P(Layouts, TrainCache,
                         ::testing::Values(DatasetLayoutKind::kShards, DatasetLayoutKind::kFiles),
                         [](const auto& p) { return std::string(layout_name(p.param)); });

// The source is whatever the phase reads: here a dataset_dir (a shared filesystem's folder), reused by a
// second run, whose cache starts empty again.
TEST(TrainCacheTier, ADatasetDirIsTheSourceAndEachRunFillsItsOwnCache) {
  testing::TempDir cache("/dev/shm");
  testing::TempDir shared("/var/tmp");
  for (int run_no = 0; run_no < 2; ++run_no) {
    auto counts = std::make_shared<ReadCounts>();
    counts->cache_prefix = cache.path();
    TrainReadParams p = small(cache.path());
    p.dataset_dir = shared.path() + "/dataset";
    p.cache_source_epoch = false;
    auto phase = make_train_read_phase(p, counting(counts));
    PhaseRun run(kRunBase);
    PhaseResult r;
    Status s = run.run(*phase, &r);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(r.details["dataset"]["origin"], run_no == 0 ? "generated" : "reused");
    EXPECT_EQ(counts->source_bytes.load(), kDatasetBytes) << run_no;
    EXPECT_EQ(counts->cache_bytes.load(), kDatasetBytes) << run_no;
    EXPECT_EQ(r.details["epochs"][1]["cache_tier"]["source_bytes"], 0) << run_no;
    EXPECT_TRUE(testing::list_files(cache.path()).empty()) << run_no;
  }
}

TEST(TrainCacheTier, SamplesReadFromTheCacheAreVerified) {
  testing::TempDir cache("/dev/shm");
  auto counts = std::make_shared<ReadCounts>();
  counts->cache_prefix = cache.path();
  counts->corrupt_cache_reads = true;
  TrainReadParams p = small(cache.path());
  p.cache_source_epoch = false;
  auto phase = make_train_read_phase(p, counting(counts));
  PhaseRun run(kRunBase);
  PhaseResult r;
  Status s = run.run(*phase, &r);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("header naming another sample"), std::string::npos) << s.message();
  EXPECT_EQ(r.details["epochs"][0]["corrupt_samples"], 0);
  EXPECT_EQ(r.details["epochs"][1]["corrupt_samples"], 256);
  EXPECT_TRUE(testing::list_files(cache.path()).empty());
}

TEST(TrainCacheTier, ACorruptSourceSampleIsNeverCached) {
  testing::TempDir cache("/dev/shm");
  auto counts = std::make_shared<ReadCounts>();
  counts->cache_prefix = cache.path();
  counts->corrupt_source_reads = 1;
  TrainReadParams p = small(cache.path());
  p.cache_source_epoch = false;
  auto phase = make_train_read_phase(p, counting(counts));
  PhaseRun run(kRunBase);
  PhaseResult r;
  Status s = run.run(*phase, &r);
  EXPECT_FALSE(s.ok()) << "a corrupt sample fails the phase";
  const json& epochs = r.details["epochs"];
  ASSERT_EQ(epochs.size(), 2u);
  EXPECT_EQ(epochs[0]["corrupt_samples"], 1);
  EXPECT_EQ(epochs[0]["cache_tier"]["filled_samples"], 255);
  // Epoch 1 reads that one sample from the source again, and now it is right.
  EXPECT_EQ(epochs[1]["cache_tier"]["source_samples"], 1);
  EXPECT_EQ(epochs[1]["corrupt_samples"], 0);
  EXPECT_EQ(counts->source_bytes.load(), kDatasetBytes + 4096);
}

TEST(TrainCacheTier, ACacheTooSmallServesPartAndSaysSo) {
  testing::TempDir cache("/dev/shm");
  auto counts = std::make_shared<ReadCounts>();
  counts->cache_prefix = cache.path();
  TrainReadParams p = small(cache.path());
  p.cache_size = 100 * 4096;  // 100 of the 256 samples
  p.cache_source_epoch = false;
  auto phase = make_train_read_phase(p, counting(counts));
  PhaseRun run(kRunBase);
  PhaseResult r;
  Status s = run.run(*phase, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  const json& epochs = r.details["epochs"];
  EXPECT_EQ(epochs[0]["cache_tier"]["filled_samples"], 100);
  EXPECT_EQ(epochs[0]["cache_tier"]["unfilled_samples"], 156);
  // Every cached sample is read once in epoch 1; the full cache takes no more.
  EXPECT_EQ(epochs[1]["cache_tier"]["cache_samples"], 100);
  EXPECT_EQ(epochs[1]["cache_tier"]["source_samples"], 156);
  EXPECT_EQ(epochs[1]["cache_tier"]["unfilled_samples"], 156);
  EXPECT_EQ(counts->cache_bytes.load(), 100 * 4096u);
  EXPECT_EQ(counts->source_bytes.load(), kDatasetBytes + 156 * 4096u);
  EXPECT_DOUBLE_EQ(r.metrics["cache_hit_fraction"], 100.0 / 256.0);
  bool said = false;
  for (const auto& w : r.warnings)
    said = said ||
           w.find(
               "the cache tier filled up: it held 100 of the dataset's 256 samples (cache_size 400 KiB per "
               "host), and epoch 0 read 156 samples it had no room for; later epochs served "
               "39% of their samples") == 0;
  EXPECT_TRUE(said) << ::testing::PrintToString(r.warnings);
  EXPECT_TRUE(r.details["every_sample_once"].get<bool>());
}

TEST(TrainCacheTier, TheSourceOnlyEpochReadsTheSourceAlone) {
  testing::TempDir cache("/dev/shm");
  auto counts = std::make_shared<ReadCounts>();
  counts->cache_prefix = cache.path();
  TrainReadParams p = small(cache.path());
  p.cache_source_epoch = true;
  auto phase = make_train_read_phase(p, counting(counts));
  PhaseRun run(kRunBase);
  PhaseResult r;
  Status s = run.run(*phase, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(counts->source_bytes.load(), 2 * kDatasetBytes) << "epoch 0 and the source-only epoch";
  EXPECT_EQ(counts->cache_bytes.load(), kDatasetBytes) << "epoch 1";
  const json& se = r.details["cache_tier"]["source_epoch"];
  EXPECT_EQ(se["epoch"], 2);
  EXPECT_EQ(se["source_bytes"], kDatasetBytes);
  EXPECT_EQ(se["cache_bytes"], 0);
  EXPECT_TRUE(se["every_planned_sample_once"].get<bool>());
  EXPECT_EQ(r.metrics.count("au_source_only"), 1u);
  EXPECT_EQ(r.metrics.count("au_cached"), 1u);
  // The regular figures stay those of the suite's epochs.
  EXPECT_EQ(r.metrics["epochs"], 2);
  EXPECT_EQ(r.metrics["samples"], 512);
  EXPECT_EQ(r.metrics["dataset_read_bytes"], 2 * kDatasetBytes);
}

TEST(TrainCacheTier, KeepLeavesTheCacheUnderTheRunsName) {
  testing::TempDir cache("/dev/shm");
  auto counts = std::make_shared<ReadCounts>();
  counts->cache_prefix = cache.path();
  TrainReadParams p = small(cache.path());
  p.epochs = 1;
  p.cache_source_epoch = false;
  auto phase = make_train_read_phase(p, counting(counts));
  PhaseRun run(kRunBase);
  PhaseResult r;
  ASSERT_TRUE(run.run(*phase, &r, true).ok());
  const std::string mine = cache.path() + "/" + fs::path(run.path()).filename().string() + "/train";
  EXPECT_EQ(r.details["cache_tier"]["path"], mine);
  EXPECT_EQ(files_below(mine).size(), 256u);
  // Beside it only the run's lock and the kept mark, which keep `iofab clean` off it.
  const std::string run_folder = cache.path() + "/" + fs::path(run.path()).filename().string();
  EXPECT_TRUE(fs::exists(run_folder + "/" + kRunLockName));
  EXPECT_TRUE(fs::exists(run_folder + "/" + kKeptMarkerName));
  EXPECT_EQ(files_below(cache.path()).size(), 258u) << "nothing outside its own folder";
}

TEST(TrainCacheTier, StopMidEpochRemovesTheCache) {
  testing::TempDir cache("/dev/shm");
  auto counts = std::make_shared<ReadCounts>();
  counts->cache_prefix = cache.path();
  TrainReadParams p = small(cache.path());
  p.compute_per_batch = 60.0;  // the second batch waits a minute unless the stop ends it
  auto phase = make_train_read_phase(p, counting(counts));
  PhaseRun run(kRunBase);
  std::atomic<bool> returned{false};
  std::thread stopper([&] {
    // Stop once the cache holds something: the removal then has something to remove. A phase that
    // returned first (an error) fails the test below instead of hanging it.
    while (!returned.load() && files_below(cache.path()).empty()) std::this_thread::yield();
    run.stop = true;
  });
  PhaseResult r;
  Status s = run.run(*phase, &r);
  returned = true;
  stopper.join();
  EXPECT_EQ(s.code(), Status::Code::kInterrupted) << s.message();
  EXPECT_TRUE(testing::list_files(cache.path()).empty());
}

TEST(TrainCacheTier, ACacheDirWithoutRoomWritesNothing) {
  // Far more than any machine's /dev/shm (an exabyte): the free-space check refuses before anything is
  // made.
  testing::TempDir cache("/dev/shm");
  CacheTierOptions co;
  co.dir = cache.path();
  co.need_bytes = 1ULL << 60;
  PhaseRun run(kRunBase);
  SelfComm comm;
  TargetInfo target;
  ASSERT_TRUE(describe_target(run.path(), &target).ok());
  Progress progress;
  std::atomic<bool> stop{false};
  PhaseContext ctx{comm, run.path(), target, stop, progress, "train", false};
  std::unique_ptr<SampleCache> c;
  Status s = SampleCache::open(co, ctx, &c);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("cache_dir " + cache.path() + " has "), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("nothing was written"), std::string::npos) << s.message();
  EXPECT_TRUE(testing::list_files(cache.path()).empty());
}

TEST(TrainCacheTier, ACacheDirThatIsTheTargetOrTheDatasetDirIsRefused) {
  testing::TempDir shared("/var/tmp");
  for (const bool dataset_dir : {false, true}) {
    PhaseRun run(kRunBase);
    TrainReadParams p = small(dataset_dir ? shared.path() : run.path());
    if (dataset_dir) p.dataset_dir = shared.path();
    auto phase = make_train_read_phase(p, counting(std::make_shared<ReadCounts>()));
    PhaseResult r;
    Status s = run.run(*phase, &r);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.message();
    EXPECT_NE(s.message().find(std::string(" is the ") + (dataset_dir ? "dataset_dir" : "target")),
              std::string::npos)
        << s.message();
    EXPECT_TRUE(testing::list_files(run.path()).empty());
  }
  // The dataset_dir's lock file is iofab's; nothing else was made there.
  for (const auto& f : testing::list_files(shared.path())) EXPECT_EQ(f, "iofab-dataset.lock");
}

TEST(TrainCacheTier, BadParamsNameTheField) {
  struct Case {
    json params;
    std::string says;
  };
  const json base = {{"num_samples", 64}, {"sample_size", "4KiB"}, {"batch_size", 8}};
  auto with = [&](json extra) {
    json j = base;
    j.update(extra);
    return j;
  };
  for (const Case& c : {
           Case{with({{"cache_dir", "nvme/cache"}}), "phases[0].cache_dir: must be an absolute folder"},
           Case{with({{"cache_dir", "/dev/null"}}), "phases[0].cache_dir: is a device"},
           Case{with({{"cache_dir", "/etc/hostname"}}), "phases[0].cache_dir: exists and is not a folder"},
           Case{with({{"cache_dir", "/no/such/folder"}}), "phases[0].cache_dir: does not exist"},
           Case{with({{"cache_dir", "/dev/shm"}, {"engine", "null"}}),
                "phases[0].cache_dir: needs an engine"},
           Case{with({{"cache_dir", "/dev/shm"}, {"dataset_dir", "/dev/shm/"}}),
                "phases[0].cache_dir: is the dataset_dir"},
           Case{with({{"cache_size", "1GiB"}}), "phases[0].cache_size: applies only with cache_dir"},
           Case{with({{"cache_source_epoch", false}}),
                "phases[0].cache_source_epoch: applies only with cache_dir"},
           Case{with({{"cache_dir", "/dev/shm"}, {"cache_size", "lots"}}), "phases[0].cache_size"},
       }) {
    std::string errors;
    EXPECT_EQ(testing::PhaseHarness::parse("train_read", c.params, &errors), nullptr) << c.params.dump();
    EXPECT_NE(errors.find(c.says), std::string::npos) << c.params.dump() << ": " << errors;
  }
  EXPECT_NE(testing::PhaseHarness::parse("train_read", with({{"cache_dir", "/dev/shm"}})), nullptr);
}

TEST(TrainCacheTier, BadParamsExit2BeforeWritingAnything) {
  testing::TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json";
  testing::write_file(suite, R"({"phases": [{"kind": "train_read", "num_samples": 64, "sample_size": "4KiB",
                                "batch_size": 8, "cache_dir": "relative/cache"}]})");
  const std::string target = dir.path() + "/target";
  testing::CommandResult r =
      testing::run_iofab({"run", suite, "--target", target, "--out", dir.path() + "/r.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("phases[0].cache_dir: must be an absolute folder"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(target));
  EXPECT_FALSE(fs::exists(dir.path() + "/r.json"));
}

}  // namespace
}  // namespace iofab
