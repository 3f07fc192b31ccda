// Phase `metadata` on real folders: every step counted exactly, a stride that reads what another rank
// made, and failures (a leftover file, inodes running out, Ctrl-C) that stop the phase naming the path and
// leave nothing behind.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "workloads/forwarding_store.h"
#include "harness/engines/engine.h"
#include "harness/engines/io_driver.h"
#include "harness/store/posix_store.h"
#include "harness/store/store_folder.h"
#include "workloads/phase_harness.h"
#include "test_util.h"
#include "thread_comm.h"
#include "workloads/metadata/metadata_ops.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

double metric(const PhaseResult& r, const std::string& name) {
  const auto it = r.metrics.find(name);
  return it == r.metrics.end() ? -1 : it->second;
}

TEST(MetadataPhase, EveryStepCountsExactlyItsFilesAndFoldersAndLeavesNothing) {
  PhaseHarness h;
  PhaseResult r;
  const json params = {{"files_per_rank", 200}, {"dirs_per_level", 3}, {"depth", 2},
                       {"workers", 2},          {"file_size", 3901}};
  Status s = h.run("metadata", "md", params, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(metric(r, "mkdir_ops"), 13);  // the tree's root, 3 folders, 9 leaves
  for (const char* step : {"create", "stat", "open", "read", "list", "rename", "remove"}) {
    EXPECT_EQ(metric(r, std::string(step) + "_ops"), 200) << step;
    EXPECT_GT(metric(r, std::string(step) + "_ops_per_s"), 0) << step;
    EXPECT_EQ(metric(r, std::string(step) + "_errors"), 0) << step;
  }
  EXPECT_EQ(metric(r, "rmdir_ops"), 13);
  EXPECT_EQ(metric(r, "files"), 200);
  EXPECT_GE(metric(r, "stat_latency_max_s"), metric(r, "stat_latency_p50_s"));
  EXPECT_TRUE(list_files(h.path()).empty()) << list_files(h.path()).front();
  EXPECT_FALSE(r.warnings.empty());  // one rank, no stride: the client cache could answer
}

TEST(MetadataPhase, OnlyTheChosenStepsAreTimedAndTheRestStillCleanUp) {
  PhaseHarness h;
  PhaseResult r;
  Status s = h.run("metadata", "md", {{"files_per_rank", 50}, {"steps", {"create", "stat"}}}, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(metric(r, "create_ops"), 50);
  EXPECT_EQ(metric(r, "stat_ops"), 50);
  EXPECT_EQ(metric(r, "remove_ops"), -1);  // ran untimed, to leave nothing
  EXPECT_TRUE(list_files(h.path()).empty());
}

TEST(MetadataPhase, KeepLeavesTheTreeAndEveryFile) {
  PhaseHarness h;
  PhaseResult r;
  Status s = h.run("metadata", "md", {{"files_per_rank", 20}, {"steps", {"create"}}}, &r, /*keep=*/true);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(list_files(h.path() + "/md/rank0").size(), 20u);
}

// Records every path opened and stat'ed through the store, by rank.
class Recording final : public ForwardingStore {
 public:
  Recording(std::unique_ptr<Store> inner, std::vector<std::string>* log, std::mutex* mu)
      : ForwardingStore(std::move(inner)), log_(log), mu_(mu) {}
  Status open(std::string_view path, const OpenOptions& o, StoreFile* out) override {
    record("open " + std::string(path));
    return ForwardingStore::open(path, o, out);
  }
  Status stat(std::string_view path, EntryInfo* info) override {
    record("stat " + std::string(path));
    return ForwardingStore::stat(path, info);
  }

 private:
  void record(std::string s) {
    std::lock_guard<std::mutex> lock(*mu_);
    log_->push_back(std::move(s));
  }
  std::vector<std::string>* log_;
  std::mutex* mu_;
};

// Two ranks run the metadata phase named "md" with params in dir, each on the POSIX store as wrap(store,
// rank) wraps it; each rank's status and result land in outcome and results.
using WrapStore = std::function<std::unique_ptr<Store>(std::unique_ptr<Store>, size_t rank)>;
void run_two_ranks(const TempDir& dir, const json& params, const WrapStore& wrap,
                   std::array<Status, 2>* outcome, std::array<PhaseResult, 2>* results) {
  TargetInfo target;
  ASSERT_TRUE(describe_target(dir.path(), &target).ok());
  std::atomic<bool> stop{false};
  run_ranks(2, [&](Comm& comm) {
    const auto rank = static_cast<size_t>(comm.rank());
    auto phase = PhaseHarness::parse("metadata", params);
    ASSERT_NE(phase, nullptr);
    std::unique_ptr<Store> posix;
    ASSERT_TRUE(open_posix_store(dir.path(), false, &posix).ok());
    const std::unique_ptr<Store> store = wrap(std::move(posix), rank);
    Progress progress;
    PhaseContext ctx{comm, dir.path(), target, stop, progress, "md", false, nullptr};
    ctx.store = store.get();
    (*outcome)[rank] = phase->run(ctx, &(*results)[rank]);
  });
}

TEST(MetadataPhase, WithAStrideEachRankStatsAndReadsTheFilesTheOtherRankMadeAndChecksTheirBytes) {
  TempDir dir("/dev/shm");
  const json params = {{"files_per_rank", 30}, {"stride", 1}, {"file_size", 1000}};
  std::array<std::vector<std::string>, 2> logs;
  std::array<std::mutex, 2> mus;
  std::array<Status, 2> outcome;
  std::array<PhaseResult, 2> results;
  run_two_ranks(
      dir, params,
      [&](std::unique_ptr<Store> posix, size_t rank) -> std::unique_ptr<Store> {
        return std::make_unique<Recording>(std::move(posix), &logs[rank], &mus[rank]);
      },
      &outcome, &results);
  for (size_t r = 0; r < 2; ++r) ASSERT_TRUE(outcome[r].ok()) << "rank " << r << ": " << outcome[r].message();
  for (size_t r = 0; r < 2; ++r) {
    const std::string other = "md/rank" + std::to_string(1 - r) + "/f." + std::to_string(1 - r) + ".";
    size_t opened = 0, stated = 0;
    for (const std::string& e : logs[r]) {
      if (e.rfind("open " + other, 0) == 0) ++opened;
      if (e.rfind("stat " + other, 0) == 0) ++stated;
      EXPECT_EQ(e.find("f." + std::to_string(r) + "."), std::string::npos) << "rank " << r << " read its own: " << e;
    }
    EXPECT_EQ(stated, 30u) << "rank " << r;
    EXPECT_EQ(opened, 60u) << "rank " << r;  // open, then read
  }
  EXPECT_EQ(metric(results[0], "read_ops"), 60);
  EXPECT_EQ(metric(results[0], "list_ops"), 60);
  EXPECT_TRUE(results[0].warnings.empty()) << results[0].warnings.front();
  EXPECT_TRUE(list_files(dir.path()).empty());
}

TEST(MetadataPhase, AReadOfBytesAnotherRankDidNotWriteFailsNamingTheFile) {
  TempDir dir("/dev/shm");
  std::unique_ptr<Store> store;
  ASSERT_TRUE(open_posix_store(dir.path(), false, &store).ok());
  std::unique_ptr<StoreFolder> folder;
  ASSERT_TRUE(store->open_folder("", &folder).ok());
  MetadataParams p;
  p.file_size = 512;
  auto engine_for = [] {
    std::unique_ptr<Engine> e;
    EXPECT_TRUE(make_engine("psync", EngineOptions{}, &e).ok());
    return e;
  };
  MdFileOps writer(p, engine_for()), reader(p, engine_for());
  ASSERT_TRUE(writer.create(*folder, "f.0.5", 0, 5).ok());
  EXPECT_TRUE(reader.read(*folder, "f.0.5", 0, 5).ok());
  const Status s = reader.read(*folder, "f.0.5", 1, 5);  // as if rank 1 had made it
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("f.0.5"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("rank 1"), std::string::npos) << s.message();
}

TEST(MetadataPhase, ALeftoverFileIsEexistNamingThePathAndTheFailedPhaseLeavesNothing) {
  PhaseHarness h;
  ASSERT_EQ(system(("mkdir -p " + h.path() + "/md/rank0 && touch " + h.path() + "/md/rank0/f.0.7").c_str()), 0);
  PhaseResult r;
  Status s = h.run("metadata", "md", {{"files_per_rank", 20}}, &r);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("md/rank0/f.0.7"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("File exists"), std::string::npos) << s.message();
  EXPECT_EQ(metric(r, "create_errors"), 1);
  EXPECT_EQ(r.details["steps"]["create"]["errors"]["EEXIST"], 1);
  EXPECT_TRUE(list_files(h.path()).empty());
}

TEST(MetadataPhase, RunningOutOfInodesIsEnospcAndTheFailedPhaseLeavesNothing) {
  SmallTmpfs fs("8m,nr_inodes=64");
  if (!fs.mounted()) GTEST_SKIP() << "mounting a tmpfs needs root";
  PhaseHarness h(fs.path());
  PhaseResult r;
  Status s = h.run("metadata", "md", {{"files_per_rank", 500}}, &r);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("No space left on device"), std::string::npos) << s.message();
  EXPECT_EQ(r.details["steps"]["create"]["errors"]["ENOSPC"], 1);
  EXPECT_TRUE(list_files(h.path()).empty());
}

// Sets the stop flag once n files have been created: Ctrl-C mid-create, at a point no timing decides.
class StopAfter final : public ForwardingStore {
 public:
  StopAfter(std::unique_ptr<Store> inner, std::atomic<bool>* stop, int n)
      : ForwardingStore(std::move(inner)), stop_(stop), left_(n) {}
  Status create(std::string_view path, const OpenOptions& o, StoreFile* out) override {
    if (--left_ == 0) stop_->store(true);
    return ForwardingStore::create(path, o, out);
  }

 private:
  std::atomic<bool>* stop_;
  std::atomic<int> left_;
};

TEST(MetadataPhase, CtrlCMidCreateStopsThePhaseAndLeavesNothing) {
  PhaseHarness h;
  h.wrap_store = [&](std::unique_ptr<Store> s) -> std::unique_ptr<Store> {
    return std::make_unique<StopAfter>(std::move(s), &h.stop, 40);
  };
  PhaseResult r;
  Status s = h.run("metadata", "md", {{"files_per_rank", 1000}}, &r);
  EXPECT_EQ(s.code(), Status::Code::kInterrupted) << s.message();
  EXPECT_EQ(metric(r, "create_ops"), 40);
  EXPECT_TRUE(list_files(h.path()).empty());
}

TEST(MetadataPhase, BadParamsNameTheFieldAndTheExpectedForm) {
  std::string errors;
  EXPECT_EQ(PhaseHarness::parse("metadata", {{"steps", {"create", "frobnicate"}}}, &errors), nullptr);
  EXPECT_NE(errors.find("phases[0].steps[1]: expected a list of step names"), std::string::npos) << errors;
  EXPECT_EQ(PhaseHarness::parse("metadata", {{"steps", {"stat"}}}, &errors), nullptr);
  EXPECT_NE(errors.find("add \"create\""), std::string::npos) << errors;
  EXPECT_EQ(PhaseHarness::parse("metadata", {{"steps", {"create", "rmdir"}}}, &errors), nullptr);
  EXPECT_NE(errors.find("add \"remove\""), std::string::npos) << errors;
  EXPECT_EQ(PhaseHarness::parse("metadata", {{"steps", {"create", "create"}}}, &errors), nullptr);
  EXPECT_NE(errors.find("listed twice"), std::string::npos) << errors;
  EXPECT_EQ(PhaseHarness::parse("metadata", {{"dirs_per_level", 100}, {"depth", 4}}, &errors), nullptr);
  EXPECT_NE(errors.find("phases[0].depth"), std::string::npos) << errors;
  EXPECT_EQ(PhaseHarness::parse("metadata", {{"files_per_rank", 2}, {"workers", 3}}, &errors), nullptr);
  EXPECT_NE(errors.find("phases[0].workers"), std::string::npos) << errors;
  EXPECT_EQ(PhaseHarness::parse("metadata", {{"file_size", "1GiB"}}, &errors), nullptr);
  EXPECT_NE(errors.find("phases[0].file_size"), std::string::npos) << errors;
}

// Holds the create calls from the n-th on (counted across a rank's workers) until `seconds` have passed
// since its first create, which is after the phase's start: the stonewall has fired by then, so the rank
// stops after exactly the creates it let through or held, whatever the machine's load.
class HoldPastStonewall final : public ForwardingStore {
 public:
  HoldPastStonewall(std::unique_ptr<Store> inner, int n, double seconds)
      : ForwardingStore(std::move(inner)), n_(n), hold_ns_(static_cast<uint64_t>(seconds * 1e9)) {}
  Status create(std::string_view path, const OpenOptions& o, StoreFile* out) override {
    uint64_t expected = 0;
    first_ns_.compare_exchange_strong(expected, now_ns());
    if (++calls_ >= n_) {
      while (now_ns() < first_ns_.load() + hold_ns_)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return ForwardingStore::create(path, o, out);
  }

 private:
  int n_;
  uint64_t hold_ns_;
  std::atomic<int> calls_{0};
  std::atomic<uint64_t> first_ns_{0};
};

TEST(MetadataPhase, AStonewallMidCreateWearsOutToTheMostARankMadeAndLaterStepsCountExactlyThoseFiles) {
  TempDir dir("/dev/shm");
  const json params = {{"files_per_rank", 1000},
                       {"stride", 1},
                       {"workers", 2},
                       {"stonewall", "500ms"},
                       {"steps", {"create", "stat", "list", "remove"}}};
  const std::array<int, 2> hold_from = {10, 25};  // with 2 workers: rank 0 makes 11, rank 1 makes 26
  std::array<Status, 2> outcome;
  std::array<PhaseResult, 2> results;
  run_two_ranks(
      dir, params,
      [&](std::unique_ptr<Store> posix, size_t rank) -> std::unique_ptr<Store> {
        return std::make_unique<HoldPastStonewall>(std::move(posix), hold_from[rank], 0.5);
      },
      &outcome, &results);
  for (size_t r = 0; r < 2; ++r) ASSERT_TRUE(outcome[r].ok()) << "rank " << r << ": " << outcome[r].message();
  const PhaseResult& r = results[0];
  EXPECT_EQ(metric(r, "stonewall_items"), 11 + 26);
  EXPECT_EQ(metric(r, "stonewall_items_min"), 11);
  EXPECT_EQ(metric(r, "stonewall_items_max"), 26);
  EXPECT_GE(metric(r, "stonewall_seconds"), 0.5);
  EXPECT_NEAR(metric(r, "stonewall_ops_per_s"), 37 / metric(r, "stonewall_seconds"), 1e-6);
  EXPECT_EQ(r.details["stonewall"]["fired"], true);
  // The wear-out: rank 0 made 15 more, so every later step finds 26 files a rank.
  for (const char* step : {"create", "stat", "list", "remove"})
    EXPECT_EQ(metric(r, std::string(step) + "_ops"), 52) << step;
  EXPECT_EQ(metric(r, "files"), 52);
  EXPECT_GE(metric(r, "create_seconds"), metric(r, "stonewall_seconds"));
  for (const std::string& w : r.warnings) EXPECT_EQ(w.find("stonewall"), std::string::npos) << w;
  EXPECT_TRUE(list_files(dir.path()).empty());
}

TEST(MetadataPhase, AStonewallThatNeverFiresMakesEveryFileAndWarnsIo500WouldCallTheRunInvalid) {
  PhaseHarness h;
  PhaseResult r;
  Status s = h.run("metadata", "md", {{"files_per_rank", 40}, {"workers", 3}, {"stonewall", "1h"}}, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(metric(r, "stonewall_items"), 40);
  EXPECT_EQ(metric(r, "stonewall_items_min"), 40);
  for (const char* step : {"create", "stat", "read", "list", "remove"})
    EXPECT_EQ(metric(r, std::string(step) + "_ops"), 40) << step;
  EXPECT_EQ(r.details["stonewall"]["fired"], false);
  bool warned = false;
  for (const std::string& w : r.warnings)
    warned = warned || w.find("IO500 rates such a run invalid") != std::string::npos;
  EXPECT_TRUE(warned);
  EXPECT_TRUE(list_files(h.path()).empty());
}

TEST(MetadataPhase, BadStonewallValuesNameTheField) {
  std::string errors;
  for (const json& bad : {json("-1s"), json("soon"), json(true), json("30d")}) {
    EXPECT_EQ(PhaseHarness::parse("metadata", {{"stonewall", bad}}, &errors), nullptr) << bad;
    EXPECT_NE(errors.find("phases[0].stonewall"), std::string::npos) << bad << ": " << errors;
  }
  EXPECT_EQ(PhaseHarness::parse("metadata", {{"stonewall", "5s"}, {"steps", {"mkdir", "rmdir"}}}, &errors),
            nullptr);
  EXPECT_NE(errors.find("phases[0].stonewall"), std::string::npos) << errors;
  EXPECT_NE(errors.find("add \"create\""), std::string::npos) << errors;
}

}  // namespace
}  // namespace iofab::testing
