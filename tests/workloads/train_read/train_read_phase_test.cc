// The train_read phase in-process on one rank, with engines that are slow or
// fail on purpose: AU, prefetch, generation timing, reuse, errors, Ctrl-C.
#include "workloads/train_read/train_read_phase.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>

#include "harness/comm/comm.h"
#include "harness/engines/io_pump.h"
#include "harness/forwarding_engine.h"
#include "harness/fs/target.h"
#include "harness/store/posix_store.h"
#include "test_util.h"
#include "workloads/phase_run.h"

namespace iofab {
namespace {

using nlohmann::json;
using testing::PhaseRun;

// psync with a fixed delay before every I/O: a slow storage system.
class SlowEngine final : public testing::ForwardingEngine {
 public:
  SlowEngine(std::unique_ptr<Engine> inner, uint64_t delay_ns, long fail_at)
      : ForwardingEngine(std::move(inner)), delay_ns_(delay_ns), fail_at_(fail_at) {}
  std::string_view name() const override { return "slow"; }
  QueueResult queue(const IoRequest& req, IoCompletion* done) override {
    if (delay_ns_ > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(delay_ns_));
    if (fail_at_ >= 0 && ios_++ == fail_at_) {
      *done = IoCompletion{req.tag, -EIO};
      return QueueResult::kCompleted;
    }
    return inner_->queue(req, done);
  }

 private:
  uint64_t delay_ns_;
  long fail_at_;
  long ios_ = 0;
};

EngineFactory engine(const std::string& name, uint64_t delay_ns = 0, long fail_at = -1) {
  return [=](const EngineOptions& eo, std::unique_ptr<Engine>* out) {
    std::unique_ptr<Engine> inner;
    Status s = make_engine(name, eo, &inner);
    if (!s.ok()) return s;
    if (delay_ns == 0 && fail_at < 0) {
      *out = std::move(inner);
    } else {
      *out = std::make_unique<SlowEngine>(std::move(inner), delay_ns, fail_at);
    }
    return Status::Ok();
  };
}

TrainReadParams small(uint64_t samples, uint64_t size, uint64_t batch) {
  TrainReadParams p;
  p.dataset.num_samples = samples;
  p.dataset.sample_size = size;
  p.dataset.samples_per_shard = 64;
  p.dataset.resolve_size_bounds();
  p.batch_size = batch;
  p.epochs = 2;
  p.read_threads = 2;
  p.queue_depth = 4;
  p.drop_cache = DropCache::kNever;
  return p;
}

TEST(TrainReadPhase, AuNearOneWhenComputeDominates) {
  TrainReadParams p = small(256, 4096, 16);
  p.compute_per_batch = 0.01;
  auto phase = make_train_read_phase(p, engine("null"));
  PhaseRun run;
  PhaseResult r;
  Status s = run.run(*phase, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_GE(r.metrics["au"], 0.9);
  EXPECT_LE(r.metrics["au"], 1.0);
  EXPECT_LE(r.metrics["batch_wait_fraction"], 0.1);
  EXPECT_EQ(r.metrics["samples"], 512);
  EXPECT_EQ(r.details["epochs"].size(), 2u);
  for (const auto& e : r.details["epochs"]) {
    EXPECT_EQ(e["batches"], 16);
    EXPECT_GE(e["au"].get<double>(), 0.9);
    // A sleep never ends early; how late it ends depends on the machine's load.
    EXPECT_GE(e["compute_s"].get<double>(), 16 * 0.01);
  }
}

TEST(TrainReadPhase, AuLowWhenComputeIsZeroOrSmallAgainstASlowEngine) {
  TrainReadParams p = small(96, 4096, 8);
  p.read_threads = 1;
  p.queue_depth = 1;
  p.epochs = 1;
  auto phase = make_train_read_phase(p, engine("psync", 2'000'000));
  PhaseRun run;
  PhaseResult r;
  ASSERT_TRUE(run.run(*phase, &r).ok());
  EXPECT_EQ(r.metrics["au"], 0.0) << "nothing computes";
  EXPECT_GE(r.metrics["batch_wait_fraction"], 0.9);
  EXPECT_GE(r.metrics["sample_latency_p50_s"], 0.002);

  // 1 ms of compute against 8 x 2 ms of reading per batch.
  p.compute_per_batch = 0.001;
  auto phase2 = make_train_read_phase(p, engine("psync", 2'000'000));
  PhaseResult r2;
  ASSERT_TRUE(run.run(*phase2, &r2).ok());
  EXPECT_GT(r2.metrics["au"], 0.0);
  EXPECT_LT(r2.metrics["au"], 0.3);
  EXPECT_LT(r2.metrics["au_min"], 0.3);
}

TEST(TrainReadPhase, PrefetchOverlapsReadingWithCompute) {
  // One sample a batch: one 4 ms read, then 8 ms of compute. Without prefetch they take
  // turns (AU = C / (C + R), about 0.67); prefetching, the read hides behind compute
  // (AU near 1). One sleep on each side, so a loaded machine's oversleep X stretches both
  // alike: the gap, (4 + X_read) / (12 + X_compute + X_read), stays wide.
  TrainReadParams p = small(32, 4096, 1);
  p.read_threads = 1;
  p.queue_depth = 1;
  p.epochs = 1;
  p.compute_per_batch = 0.008;
  PhaseRun run;
  p.prefetch = 0;
  PhaseResult none;
  ASSERT_TRUE(run.run(*make_train_read_phase(p, engine("psync", 4'000'000)), &none).ok());
  p.prefetch = 2;
  PhaseResult two;
  ASSERT_TRUE(run.run(*make_train_read_phase(p, engine("psync", 4'000'000)), &two).ok());
  EXPECT_LT(none.metrics["au"], 0.9);
  EXPECT_GT(two.metrics["au"], none.metrics["au"] + 0.1);
}

TEST(TrainReadPhase, EverySampleReadOncePerEpochAndVerified) {
  TrainReadParams p = small(300, 1000, 7);  // unaligned sizes, a short last batch
  p.dataset.distribution = SizeDistribution::kNormal;
  p.dataset.sample_size_stdev = 300;
  p.dataset.sample_size_max = 0;
  p.dataset.resolve_size_bounds();
  p.epochs = 3;
  auto phase = make_train_read_phase(p, engine("psync"));
  PhaseRun run;
  PhaseResult r;
  ASSERT_TRUE(run.run(*phase, &r).ok());
  EXPECT_TRUE(r.details["verified"].get<bool>());
  EXPECT_TRUE(r.details["every_sample_once"].get<bool>());
  EXPECT_EQ(r.metrics["corrupt_samples"], 0);
  for (const auto& e : r.details["epochs"]) {
    EXPECT_EQ(e["samples"], 300);
    EXPECT_EQ(e["batches"], 43);  // ceil(300 / 7)
    EXPECT_TRUE(e["sample_ids"]["every_sample_once"].get<bool>());
  }
  EXPECT_DOUBLE_EQ(r.metrics["read_bytes"], 3.0 * r.details["dataset"]["sample_bytes"].get<double>());
}

// DLIO lists a files dataset's folder before the first epoch: that listing and the first batch after it
// are the dataset's startup, a figure of their own; a shards dataset has no tree to list.
TEST(TrainReadPhase, AFilesDatasetsStartupIsItsListingThenItsFirstBatch) {
  TrainReadParams p = small(200, 1000, 8);
  p.dataset.layout = DatasetLayoutKind::kFiles;
  p.dataset.files_per_dir = 16;  // 200 files in folders of 16: a tree two levels deep
  auto phase = make_train_read_phase(p, engine("psync"));
  PhaseRun run;
  PhaseResult r;
  ASSERT_TRUE(run.run(*phase, &r).ok());
  ASSERT_TRUE(r.metrics.contains("dataset_list_seconds"));
  const double list = r.metrics["dataset_list_seconds"];
  EXPECT_GT(list, 0);
  EXPECT_GE(r.metrics["dataset_startup_seconds"], list);
  EXPECT_EQ(r.details["dataset_startup"]["listed_files"], r.details["dataset"]["files"]);
  EXPECT_EQ(r.details["dataset_startup"]["listed_files"], 200);
  for (const auto& w : r.warnings) EXPECT_EQ(w.find("files where the layout has"), std::string::npos) << w;

  TrainReadParams shards = small(200, 1000, 8);
  auto sharded = make_train_read_phase(shards, engine("psync"));
  PhaseRun again;
  PhaseResult rs;
  ASSERT_TRUE(again.run(*sharded, &rs).ok());
  EXPECT_FALSE(rs.metrics.contains("dataset_list_seconds")) << "shards: no tree listed";
}

TEST(TrainReadPhase, GenerationIsTimedApartFromReading) {
  // Generation writes 96 MiB; the null engine reads nothing: if generation
  // leaked into read time, read_seconds would be at least generate_seconds.
  TrainReadParams p = small(384, 256 << 10, 32);
  auto phase = make_train_read_phase(p, engine("null"));
  PhaseRun run;
  PhaseResult r;
  ASSERT_TRUE(run.run(*phase, &r).ok());
  const double gen = r.metrics["generate_seconds"];
  const double read = r.metrics["read_seconds"];
  EXPECT_GT(gen, 0);
  EXPECT_LT(read, gen);
  EXPECT_LE(gen + read, run.seconds) << "two disjoint parts of the phase";
  double epochs = 0;
  for (const auto& e : r.details["epochs"]) epochs += e["seconds"].get<double>();
  EXPECT_DOUBLE_EQ(read, epochs);
  EXPECT_NEAR(r.metrics["samples_per_s"], r.metrics["samples"] / read, 1e-6 * r.metrics["samples_per_s"]);
  EXPECT_EQ(r.details["dataset"]["origin"], "generated");
  EXPECT_TRUE(testing::list_files(run.path()).empty()) << "the phase removes its dataset";
}

TEST(TrainReadPhase, DatasetDirIsReusedRegeneratedOrRefused) {
  testing::TempDir dir("/dev/shm");
  TrainReadParams p = small(100, 2048, 10);
  p.dataset.layout = DatasetLayoutKind::kFiles;
  p.dataset.files_per_dir = 16;
  p.epochs = 1;
  p.dataset_dir = dir.path() + "/ds";
  PhaseRun run;
  PhaseResult first;
  ASSERT_TRUE(run.run(*make_train_read_phase(p, engine("psync")), &first).ok());
  EXPECT_EQ(first.details["dataset"]["origin"], "generated");
  EXPECT_EQ(testing::list_files(dir.path() + "/ds").size(), 102u)
      << "100 samples, the manifest and lock stay";

  PhaseResult again;
  ASSERT_TRUE(run.run(*make_train_read_phase(p, engine("psync")), &again).ok());
  EXPECT_EQ(again.details["dataset"]["origin"], "reused");
  EXPECT_EQ(again.metrics["generate_seconds"], 0.0);
  EXPECT_TRUE(again.details["every_sample_once"].get<bool>());

  p.dataset.num_samples = 120;
  PhaseResult other;
  ASSERT_TRUE(run.run(*make_train_read_phase(p, engine("psync")), &other).ok());
  EXPECT_EQ(other.details["dataset"]["origin"], "generated");
  EXPECT_NE(other.details["dataset"]["regenerated_because"].get<std::string>().find("num_samples"),
            std::string::npos);
  EXPECT_EQ(testing::list_files(dir.path() + "/ds").size(), 122u);

  std::filesystem::create_directory(dir.path() + "/mine");
  testing::write_file(dir.path() + "/mine/keep.txt", "user data");
  p.dataset_dir = dir.path() + "/mine";
  PhaseResult refused;
  Status s = run.run(*make_train_read_phase(p, engine("psync")), &refused);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("keep.txt"), std::string::npos) << s.message();
  EXPECT_EQ(testing::read_file(dir.path() + "/mine/keep.txt"), "user data");
  EXPECT_EQ(testing::list_files(dir.path() + "/mine").size(), 1u);
}

TEST(TrainReadPhase, ReadErrorFailsWithErrnoTextAndNoHang) {
  TrainReadParams p = small(200, 4096, 8);
  auto phase = make_train_read_phase(p, engine("psync", 0, 50));
  PhaseRun run;
  PhaseResult r;
  Status s = run.run(*phase, &r);
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_NE(s.message().find("Input/output error"), std::string::npos) << s.message();
  EXPECT_TRUE(testing::list_files(run.path()).empty());
}

TEST(TrainReadPhase, StopFlagInterruptsALongEpoch) {
  TrainReadParams p = small(64, 4096, 4);
  p.compute_per_batch = 60.0;  // 16 minutes an epoch if nothing stopped it
  auto phase = make_train_read_phase(p, engine("null"));
  PhaseRun run;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    run.stop = true;
  });
  PhaseResult r;
  Status s = run.run(*phase, &r);
  stopper.join();
  EXPECT_EQ(s.code(), Status::Code::kInterrupted) << s.message();
  // Far below one batch's compute: the stop cut the emulated compute short.
  EXPECT_LT(run.seconds, 60.0);
  EXPECT_TRUE(testing::list_files(run.path()).empty());
}

TEST(TrainReadPhase, ToGpuCopiesOrSaysWhyNot) {
  TrainReadParams p = small(64, 4096, 8);
  p.to_gpu = true;
  p.epochs = 1;
  auto phase = make_train_read_phase(p, engine("psync"));
  PhaseRun run;
  PhaseResult r;
  ASSERT_TRUE(run.run(*phase, &r).ok());
  const json& g = r.details["to_gpu"];
  EXPECT_TRUE(g["requested"].get<bool>());
  if (g["used"].get<bool>()) {
    EXPECT_EQ(r.details["epochs"][0]["gpu_copy_bytes"], 64 * 4096);
  } else {
    const std::string why = g["reason"].get<std::string>();
    EXPECT_TRUE(why == "built without CUDA" || why.rfind("no CUDA device", 0) == 0) << why;
    bool warned = false;
    for (const auto& w : r.warnings) warned = warned || w.rfind("to_gpu skipped: " + why, 0) == 0;
    EXPECT_TRUE(warned);
  }
}

TEST(TrainReadPhase, PlannedBytesCountTheDatasetOnceAndNothingForADatasetDir) {
  TrainReadParams p = small(100, 5000, 10);  // 100 samples in 2 shards of 64 and 36
  auto phase = make_train_read_phase(p, engine("null"));
  const uint64_t expect = (64 * 5000 + 4095) / 4096 * 4096 + (36 * 5000 + 4095) / 4096 * 4096;
  EXPECT_EQ(phase->planned_bytes(1), expect);
  EXPECT_EQ(phase->planned_bytes(8), expect);
  p.dataset_dir = "/somewhere";
  EXPECT_EQ(make_train_read_phase(p, engine("null"))->planned_bytes(1), 0u);
}

}  // namespace
}  // namespace iofab

namespace iofab {
namespace {

// An engine that cannot be made: the loader never exists, so the phase fails naming why and says nothing
// about an engine that "moves no data" (there was none; found on a GPU machine where cuFile refused files).
TEST(TrainReadPhase, ALoaderThatCannotBeMadeFailsWithoutAnEngineWarning) {
  TrainReadParams p = small(64, 4096, 8);
  auto phase = make_train_read_phase(p, [](const EngineOptions&, std::unique_ptr<Engine>*) {
    return Status::IoError("cuFileHandleRegister: file descriptor is not registered (5027)");
  });
  testing::PhaseRun run;
  PhaseResult r;
  Status s = run.run(*phase, &r);
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_NE(s.message().find("5027"), std::string::npos) << s.message();
  for (const auto& w : r.warnings) EXPECT_EQ(w.find("moves no data"), std::string::npos) << w;
}

}  // namespace
}  // namespace iofab
