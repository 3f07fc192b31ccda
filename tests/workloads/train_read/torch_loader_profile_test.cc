// The PyTorch DataLoader profile (workloads/train_read/torch_loader_profile.h): its handout and delivery
// order, its limits and its syscalls, asserted from its own counters (never from time); then train_read
// with loader: pytorch in-process, with the storage ceiling and the ratio in its result.
#include "workloads/train_read/torch_loader_profile.h"

#include <gtest/gtest.h>

#include <numeric>

#include "harness/engines/engine.h"
#include "harness/engines/io_driver.h"
#include "harness/store/posix_store.h"
#include "test_util.h"
#include "workloads/phase_run.h"
#include "workloads/train_read/train_read_phase.h"

namespace iofab {
namespace {

using nlohmann::json;
using testing::PhaseRun;
using testing::TempDir;

// A files dataset of n samples of size bytes in dir/data.
struct FilesDataset {
  FilesDataset(const std::string& dir, uint64_t n, uint64_t size) : layout(spec_of(n, size)) {
    std::unique_ptr<Store> store;
    EXPECT_TRUE(open_posix_store(dir, false, &store).ok());
    EXPECT_TRUE(store->make_folder(kDataFolder).ok());
    uint64_t bytes = 0;
    const Status s = generate_dataset_part(*store, kDataFolder, layout, GenerateOptions{}, &bytes);
    EXPECT_TRUE(s.ok()) << s.message();
  }
  static DatasetSpec spec_of(uint64_t n, uint64_t size) {
    DatasetSpec s;
    s.layout = DatasetLayoutKind::kFiles;
    s.num_samples = n;
    s.sample_size = size;
    s.resolve_size_bounds();
    return s;
  }
  DatasetLayout layout;
};

TorchProfileConfig config(unsigned workers, unsigned prefetch, bool persistent) {
  TorchProfileConfig c;
  c.params.num_workers = workers;
  c.params.prefetch_factor = prefetch;
  c.params.persistent_workers = persistent;
  return c;  // no spin: the test counts what the profile does, not how long it takes
}

struct Epochs {
  LoaderProfileCounters counters;
  std::vector<EpochStats> stats;
};

Epochs run_epochs(const TorchProfileConfig& c, const std::string& dir, const DatasetLayout& layout,
                  uint64_t batch, int epochs) {
  std::unique_ptr<TorchLoaderProfile> p;
  EXPECT_TRUE(TorchLoaderProfile::create(c, layout, dir + "/data", &p).ok());
  std::atomic<bool> stop{false};
  Epochs out;
  for (int e = 0; e < epochs; ++e) {
    const BatchPlan plan = plan_epoch(layout.num_samples(), 7, static_cast<uint64_t>(e), 0, 1, batch, false);
    EpochStats st;
    const Status s = p->run_epoch(plan, now_ns(), stop, nullptr, &st);
    EXPECT_TRUE(s.ok()) << s.message();
    out.stats.push_back(std::move(st));
  }
  out.counters = p->counters();
  return out;
}

TEST(TorchLoaderProfile, BatchesGoRoundRobinAndComeBackInOrderWithinTheLimit) {
  TempDir d("/dev/shm");
  FilesDataset ds(d.path(), 97, 3000);  // 20 batches of 5, the last of 2
  const Epochs r = run_epochs(config(3, 2, false), d.path(), ds.layout, 5, 2);
  const LoaderProfileCounters& c = r.counters;
  ASSERT_EQ(c.worker_of_batch.size(), 20u);
  for (size_t b = 0; b < c.worker_of_batch.size(); ++b) EXPECT_EQ(c.worker_of_batch[b], b % 3) << b;
  std::vector<uint64_t> in_order(20);
  std::iota(in_order.begin(), in_order.end(), 0);
  EXPECT_EQ(c.delivered, in_order);
  EXPECT_EQ(c.outstanding_limit, 6u);
  EXPECT_EQ(c.max_outstanding, 6u) << "the first handout fills num_workers x prefetch_factor";
  EXPECT_EQ(c.max_in_flight_worker, 1u) << "a worker reads one sample at a time";
  EXPECT_GE(c.max_in_flight_total, 1u);
  EXPECT_LE(c.max_in_flight_total, 3u);
  EXPECT_EQ(c.worker_starts, 6u) << "workers that are not persistent start again each epoch";
  for (const EpochStats& s : r.stats) {
    EXPECT_EQ(s.reads.ios, 97u);
    EXPECT_EQ(s.batches, 20u);
    EXPECT_EQ(s.corrupt, 0u);
    EXPECT_EQ(s.reads.bytes, 97u * 3000);
  }
}

TEST(TorchLoaderProfile, EachSampleIsCPythonsSyscallsAndEachBatchOneSharedBuffer) {
  TempDir d("/dev/shm");
  FilesDataset ds(d.path(), 40, 5000);
  const Epochs r = run_epochs(config(2, 2, true), d.path(), ds.layout, 8, 2);
  const LoaderProfileCounters& c = r.counters;
  ASSERT_EQ(c.samples, 80u);
  EXPECT_EQ(c.worker_starts, 2u) << "persistent workers start once";
  EXPECT_EQ(c.sample_sys.of(Sys::kOpenat), 80u);
  EXPECT_EQ(c.sample_sys.of(Sys::kNewfstatat), 160u);
  EXPECT_EQ(c.sample_sys.of(Sys::kIoctl), 80u);
  EXPECT_EQ(c.sample_sys.of(Sys::kLseek), 160u);
  EXPECT_EQ(c.sample_sys.of(Sys::kRead), 160u) << "read(size + 1), then the read that returns 0";
  EXPECT_EQ(c.sample_sys.of(Sys::kClose), 80u);
  EXPECT_EQ(c.empty_reads, 80u);
  EXPECT_EQ(c.asked_bytes, c.sample_bytes + 2 * c.samples) << "size + 1, then 1";
  // Per batch: one shared-memory file made, mapped and unlinked, and one handoff with its descriptor.
  EXPECT_EQ(c.batches, 10u);
  EXPECT_EQ(c.batch_sys.of(Sys::kFtruncate), 10u);
  EXPECT_EQ(c.batch_sys.of(Sys::kUnlink), 10u);
  EXPECT_EQ(c.batch_sys.of(Sys::kSendmsg), 10u);
  EXPECT_EQ(c.main_sys.of(Sys::kRecvmsg), 10u);
  EXPECT_EQ(c.main_sys.of(Sys::kMmap), 10u);
  const json j = c.to_json();
  EXPECT_DOUBLE_EQ(j["syscalls_per_sample"]["openat"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["reads_per_sample"].get<double>(), 2.0);
}

TEST(TorchLoaderProfile, NoWorkersMeansTheMainLoopReadsInOrder) {
  TempDir d("/dev/shm");
  FilesDataset ds(d.path(), 30, 2000);
  const Epochs r = run_epochs(config(0, 2, false), d.path(), ds.layout, 4, 1);
  EXPECT_EQ(r.counters.worker_starts, 0u);
  EXPECT_EQ(r.counters.max_in_flight_total, 1u);
  EXPECT_EQ(r.counters.batch_sys.of(Sys::kSendmsg), 0u) << "no handoff without workers";
  EXPECT_EQ(r.counters.delivered.size(), 8u);
  EXPECT_EQ(r.stats[0].reads.ios, 30u);
}

EngineFactory psync() {
  return [](const EngineOptions& eo, std::unique_ptr<Engine>* out) { return make_engine("psync", eo, out); };
}

TrainReadParams pytorch_params(uint64_t samples, bool ceiling) {
  TrainReadParams p;
  p.dataset.layout = DatasetLayoutKind::kFiles;
  p.dataset.num_samples = samples;
  p.dataset.sample_size = 4096;
  p.dataset.resolve_size_bounds();
  p.batch_size = 8;
  p.epochs = 2;
  p.read_threads = 2;
  p.queue_depth = 4;
  p.drop_cache = DropCache::kNever;
  p.loader = LoaderKind::kPytorch;
  p.torch.num_workers = 2;
  p.torch.storage_ceiling = ceiling;
  return p;
}

TEST(TorchLoaderProfile, TrainReadReportsTheProfileBesideTheStorageCeiling) {
  auto phase = make_train_read_phase(pytorch_params(128, true), psync());
  PhaseRun run;
  PhaseResult r;
  const Status s = run.run(*phase, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.metrics["samples"], 256);
  ASSERT_GT(r.metrics["samples_per_s"], 0);
  ASSERT_GT(r.metrics["storage_ceiling_samples_per_s"], 0);
  EXPECT_DOUBLE_EQ(r.metrics["framework_fraction"],
                   r.metrics["samples_per_s"] / r.metrics["storage_ceiling_samples_per_s"]);
  EXPECT_EQ(r.details["storage_ceiling"]["samples"], 128) << "one native epoch over the same dataset";
  EXPECT_EQ(r.details["loader"]["kind"], "pytorch");
  EXPECT_DOUBLE_EQ(r.details["loader_profile"]["syscalls_per_sample"]["openat"].get<double>(), 1.0);
  EXPECT_EQ(r.details["loader_profile"]["max_reads_in_flight_per_worker"], 1);
  EXPECT_TRUE(r.details["every_sample_once"].get<bool>());
  EXPECT_TRUE(r.details["calibration"].contains("source"));
}

TEST(TorchLoaderProfile, StorageCeilingFalseRunsNoNativePass) {
  auto phase = make_train_read_phase(pytorch_params(64, false), psync());
  PhaseRun run;
  PhaseResult r;
  ASSERT_TRUE(run.run(*phase, &r).ok());
  EXPECT_EQ(r.metrics.count("storage_ceiling_samples_per_s"), 0u);
  EXPECT_FALSE(r.details.contains("storage_ceiling"));
  EXPECT_EQ(r.metrics["samples"], 128);
}

}  // namespace
}  // namespace iofab
