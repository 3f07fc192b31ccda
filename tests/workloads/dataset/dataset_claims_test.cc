// What a dataset manifest may claim is bounded by what its folder holds (issue 28, item 10): a manifest
// edited to name a billion files costs no more than the folder's own files, never the claimed layout's
// memory or a try per claimed file, and every walk stops at the stop flag.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/store/posix_store.h"
#include "test_util.h"
#include "workloads/dataset/dataset.h"

namespace iofab {
namespace {

using nlohmann::json;

DatasetSpec spec_of(DatasetLayoutKind layout, uint64_t n) {
  DatasetSpec s;
  s.layout = layout;
  s.num_samples = n;
  s.sample_size = 4096;
  s.files_per_dir = 10;
  s.samples_per_shard = 1;
  s.seed = 11;
  s.resolve_size_bounds();
  return s;
}

void write_manifest_of(const std::string& root, const DatasetSpec& spec, bool complete) {
  const json m = {
      {"format", "iofab-dataset"}, {"version", 1}, {"complete", complete}, {"spec", spec.to_json()}};
  testing::write_file(root + "/" + kManifestName, m.dump());
}

std::unique_ptr<Store> store_at(const std::string& root) {
  std::unique_ptr<Store> store;
  EXPECT_TRUE(open_posix_store(root, false, &store).ok());
  return store;
}

TEST(DatasetNames, NamesTheFilesAndFoldersOfItsSpecOnly) {
  const DatasetNames files(spec_of(DatasetLayoutKind::kFiles, 250));  // 2 levels of 10 per folder
  EXPECT_EQ(files.num_files(), 250u);
  EXPECT_EQ(files.file_path(123), "d1/d2/s123");
  EXPECT_TRUE(files.names_file("d1/d2/s123"));
  EXPECT_FALSE(files.names_file("d1/d3/s123")) << "another folder";
  EXPECT_FALSE(files.names_file("d2/d5/s250")) << "past the last file";
  EXPECT_FALSE(files.names_file("d1/d2/s0123")) << "another width";
  EXPECT_FALSE(files.names_file("NOTES.txt"));
  EXPECT_TRUE(files.names_folder("d1"));
  EXPECT_TRUE(files.names_folder("d1/d2"));
  EXPECT_FALSE(files.names_folder("d1/d2/d3")) << "deeper than the spec's levels";
  EXPECT_FALSE(files.names_folder("mine"));
  const DatasetNames shards(spec_of(DatasetLayoutKind::kShards, 1'000'000'000));
  EXPECT_EQ(shards.num_files(), 1'000'000'000u);
  EXPECT_EQ(shards.file_path(7), "shard-000000007");
  EXPECT_TRUE(shards.names_file("shard-000000007"));
  EXPECT_FALSE(shards.names_file("shard-7"));
  EXPECT_FALSE(shards.names_folder("d0"));
}

// An unfinished manifest may name files its generation never wrote, but what regeneration removes is
// found by walking the folder: a claim of a billion shards costs two files' work here.
TEST(DatasetClaims, RegeneratingOverAHugeUnfinishedClaimWalksOnlyWhatIsThere) {
  testing::TempDir dir("/dev/shm");
  const std::string root = dir.path();
  write_manifest_of(root, spec_of(DatasetLayoutKind::kShards, 1'000'000'000), false);
  std::filesystem::create_directories(root + "/data");
  testing::write_file(root + "/data/shard-000000000", "a");
  testing::write_file(root + "/data/shard-000000001", "b");
  testing::write_file(root + "/data/NOTES.txt", "the user's");
  auto store = store_at(root);
  const DatasetLayout fresh(spec_of(DatasetLayoutKind::kFiles, 4));
  std::vector<std::string> notes;
  const auto t0 = std::chrono::steady_clock::now();
  const Status s = prepare_dataset_dir(*store, "", fresh, &notes);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_LT(seconds, 30) << "the claim, not the folder, set the work";
  EXPECT_EQ(testing::list_files(root + "/data"), std::vector<std::string>{"NOTES.txt"});
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("NOTES.txt"), std::string::npos) << notes[0];
}

TEST(DatasetClaims, ACompleteManifestClaimingMoreThanTheFolderHoldsIsForeign) {
  testing::TempDir dir("/dev/shm");
  const std::string root = dir.path();
  write_manifest_of(root, spec_of(DatasetLayoutKind::kFiles, 1'000'000'000), true);
  std::filesystem::create_directories(root + "/data/d0");
  testing::write_file(root + "/data/d0/s000000000", "a");
  auto store = store_at(root);
  DatasetDirState state = DatasetDirState::kEmpty;
  std::string why;
  ASSERT_TRUE(
      inspect_dataset_dir(*store, "", DatasetLayout(spec_of(DatasetLayoutKind::kFiles, 4)), &state, &why)
          .ok());
  EXPECT_EQ(state, DatasetDirState::kForeign) << why;
  EXPECT_NE(why.find("iofab-dataset.json whose spec.num_samples (1000000000) names 1000000000 sample files, "
                     "but its data/ holds 1 file"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("nothing was removed"), std::string::npos) << why;
}

TEST(DatasetClaims, ATrueClaimOfAnotherSpecIsStillStale) {
  testing::TempDir dir("/dev/shm");
  const std::string root = dir.path();
  write_manifest_of(root, spec_of(DatasetLayoutKind::kShards, 2), true);
  std::filesystem::create_directories(root + "/data");
  testing::write_file(root + "/data/shard-000000", "a");
  testing::write_file(root + "/data/shard-000001", "b");
  auto store = store_at(root);
  DatasetDirState state = DatasetDirState::kEmpty;
  std::string why;
  ASSERT_TRUE(
      inspect_dataset_dir(*store, "", DatasetLayout(spec_of(DatasetLayoutKind::kShards, 3)), &state, &why)
          .ok());
  EXPECT_EQ(state, DatasetDirState::kStale) << why;
}

TEST(DatasetClaims, EveryWalkStopsAtTheStopFlag) {
  testing::TempDir dir("/dev/shm");
  const std::string root = dir.path();
  const DatasetSpec spec = spec_of(DatasetLayoutKind::kShards, 3);
  write_manifest_of(root, spec, true);
  std::filesystem::create_directories(root + "/data");
  for (const char* f : {"shard-000000", "shard-000001", "shard-000002"})
    testing::write_file(root + "/data/" + f, "x");
  auto store = store_at(root);
  std::atomic<bool> stop{true};
  DatasetDirState state = DatasetDirState::kEmpty;
  std::string why;
  // The same spec (every file checked) and another (the claim counted): both walks stop.
  EXPECT_EQ(inspect_dataset_dir(*store, "", DatasetLayout(spec), &state, &why, &stop).code(),
            Status::Code::kInterrupted);
  EXPECT_EQ(inspect_dataset_dir(*store, "", DatasetLayout(spec_of(DatasetLayoutKind::kShards, 4)), &state,
                                &why, &stop)
                .code(),
            Status::Code::kInterrupted);
  std::vector<std::string> notes;
  EXPECT_EQ(
      prepare_dataset_dir(*store, "", DatasetLayout(spec_of(DatasetLayoutKind::kShards, 4)), &notes, &stop)
          .code(),
      Status::Code::kInterrupted);
  EXPECT_EQ(testing::list_files(root + "/data").size(), 3u) << "nothing removed once stopped";
}

}  // namespace
}  // namespace iofab
