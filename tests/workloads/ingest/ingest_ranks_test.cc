// Ingest on ranks that share one target (a shared filesystem, or the ranks of one node): the ranks
// share the phase's folder, so no rank may remove it, or another rank's files, while another rank
// still writes. A run on XFS with 2 ranks failed so ("open folder ingest: No such file or directory"):
// every rank removed the whole folder as soon as its own writes were done.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workloads/forwarding_store.h"
#include "harness/fs/target.h"
#include "harness/store/posix_store.h"
#include "workloads/phase_harness.h"
#include "test_util.h"
#include "thread_comm.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

// What the ranks asked of the store to clean up, in one list for all ranks.
struct Removals {
  std::mutex mu;
  std::vector<std::string> trees;  // "rank R: PATH"
  std::vector<std::string> files;  // "rank R: PATH"
};

class RecordingStore final : public ForwardingStore {
 public:
  RecordingStore(std::unique_ptr<Store> inner, int rank, Removals* log)
      : ForwardingStore(std::move(inner)), rank_(rank), log_(log) {}
  Status remove(std::string_view path) override {
    {
      std::lock_guard<std::mutex> lock(log_->mu);
      log_->files.push_back("rank " + std::to_string(rank_) + ": " + std::string(path));
    }
    return ForwardingStore::remove(path);
  }
  Status remove_tree(std::string_view path) override {
    {
      std::lock_guard<std::mutex> lock(log_->mu);
      log_->trees.push_back("rank " + std::to_string(rank_) + ": " + std::string(path));
    }
    return ForwardingStore::remove_tree(path);
  }

 private:
  int rank_;
  Removals* log_;
};

TEST(IngestRanks, EachRankRemovesItsOwnFilesAndRankZeroTheFolderOnce) {
  TempDir dir("/dev/shm");
  TargetInfo target;
  ASSERT_TRUE(describe_target(dir.path(), &target).ok());
  const json params = {{"workers", 2},          {"files_per_worker", 2}, {"file_size", "1MiB"},
                       {"block_size", "256KiB"}, {"queue_depth", 4},      {"engine", "psync"}};
  Removals log;
  std::atomic<bool> stop{false};
  std::array<Status, 2> outcome;
  run_ranks(2, [&](Comm& comm) {
    const int rank = comm.rank();
    auto phase = PhaseHarness::parse("ingest", params);
    ASSERT_NE(phase, nullptr);
    std::unique_ptr<Store> posix;
    ASSERT_TRUE(open_posix_store(dir.path(), false, &posix).ok());
    RecordingStore store(std::move(posix), rank, &log);
    Progress progress;
    PhaseContext ctx{comm, dir.path(), target, stop, progress, "ingest", false, nullptr};
    ctx.store = &store;
    PhaseResult result;
    outcome[static_cast<size_t>(rank)] = phase->run(ctx, &result);
  });
  for (size_t r = 0; r < outcome.size(); ++r) EXPECT_TRUE(outcome[r].ok()) << "rank " << r << ": " << outcome[r].message();

  EXPECT_EQ(log.trees, std::vector<std::string>{"rank 0: ingest"});
  std::vector<std::string> want;
  for (int rank = 0; rank < 2; ++rank) {
    for (int w = 0; w < 2; ++w) {
      for (int f = 0; f < 2; ++f) {
        want.push_back("rank " + std::to_string(rank) + ": ingest/r" + std::to_string(rank) + "-w" +
                       std::to_string(w) + "-f" + std::to_string(f));
      }
    }
  }
  std::sort(log.files.begin(), log.files.end());
  EXPECT_EQ(log.files, want);
  EXPECT_TRUE(list_files(dir.path()).empty());
}

}  // namespace
}  // namespace iofab::testing
