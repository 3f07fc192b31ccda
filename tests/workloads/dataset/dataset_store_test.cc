// The dataset through a Store: in a folder of the run's store (train_read's
// own phase folder, here a memory store) as in a dataset_dir's POSIX store.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include "harness/store/memory_store.h"
#include "harness/store/posix_store.h"
#include "test_util.h"
#include "workloads/dataset/dataset.h"

namespace iofab {
namespace {

DatasetLayout small_layout(DatasetLayoutKind kind) {
  DatasetSpec s;
  s.layout = kind;
  s.num_samples = 30;
  s.sample_size = 3000;
  s.files_per_dir = 10;
  s.samples_per_shard = 7;
  s.seed = 5;
  s.resolve_size_bounds();
  return DatasetLayout(s);
}

class DatasetInAStoreFolder : public ::testing::TestWithParam<DatasetLayoutKind> {};

TEST_P(DatasetInAStoreFolder, GeneratesBelowTheFolderAndIsThenReused) {
  MemoryStore store;
  ASSERT_TRUE(store.make_folder("train").ok());
  const DatasetLayout l = small_layout(GetParam());
  DatasetDirState state;
  std::string why;
  ASSERT_TRUE(inspect_dataset_dir(store, "train", l, &state, &why).ok());
  EXPECT_EQ(state, DatasetDirState::kEmpty);

  std::vector<std::string> notes;
  ASSERT_TRUE(prepare_dataset_dir(store, "train", l, &notes).ok());
  uint64_t bytes = 0;
  const uint64_t syncs = store.syncs();
  Status s = generate_dataset_part(store, "train/data", l, GenerateOptions{}, &bytes);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(bytes, l.total_bytes());
  EXPECT_EQ(store.syncs(), syncs + 1) << "one flush for the whole part, not one per file";
  ASSERT_TRUE(complete_manifest(store, "train", l, 0.1).ok());

  std::vector<std::string> root_names;
  ASSERT_TRUE(store.list("", &root_names).ok());
  EXPECT_EQ(root_names, std::vector<std::string>{"train"}) << "nothing outside the folder";
  ASSERT_TRUE(inspect_dataset_dir(store, "train", l, &state, &why).ok());
  EXPECT_EQ(state, DatasetDirState::kMatches) << why;

  // Every file opens for reading and starts with its first sample's header.
  for (uint64_t f = 0; f < l.num_files(); ++f) {
    StoreFile file;
    ASSERT_TRUE(open_dataset_file(store, "train/data", l, f, false, &file).ok()) << f;
    unsigned char got[kSampleHeader] = {}, want[kSampleHeader];
    sample_header(l.spec(), l.first_sample(f), want);
    ASSERT_EQ(pread(file.fd(), got, kSampleHeader, 0), static_cast<ssize_t>(kSampleHeader));
    EXPECT_EQ(std::memcmp(got, want, kSampleHeader), 0) << f;
  }
  CacheCounts cc;
  ASSERT_TRUE(dataset_cache_pass(store, "train/data", l, 0, 1, false, &cc).ok());
  EXPECT_EQ(cc.files, l.num_files());
  EXPECT_EQ(cc.bytes, l.total_bytes());
}

INSTANTIATE_TEST_SUITE_P(Layouts, DatasetInAStoreFolder,
                         ::testing::Values(DatasetLayoutKind::kFiles, DatasetLayoutKind::kShards),
                         [](const auto& p) { return std::string(layout_name(p.param)); });

TEST(DatasetStoreLock, HeldRefusesASecondRunAndARefusedFolderKeepsNoLockFile) {
  MemoryStore store;
  std::unique_ptr<StoreLock> first, second;
  ASSERT_TRUE(lock_dataset_dir(store, "", "/data/ds", &first).ok());
  ASSERT_NE(first, nullptr);
  Status s = lock_dataset_dir(store, "", "/data/ds", &second);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("dataset_dir /data/ds is in use by another iofab run"), std::string::npos)
      << s.message();

  remove_dataset_lock(store, "", &first);
  EXPECT_EQ(first, nullptr);
  EntryInfo info;
  ASSERT_TRUE(store.stat(kDatasetLockName, &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kMissing) << "the lock file this run made goes with it";
  ASSERT_TRUE(lock_dataset_dir(store, "", "/data/ds", &second).ok()) << "and the folder is free again";
}

TEST(DatasetStoreLock, ALockFileAnotherRunMadeStaysWhenTheFolderIsRefused) {
  testing::TempDir dir;
  std::unique_ptr<Store> store;
  ASSERT_TRUE(open_posix_store(dir.path() + "/ds", true, &store).ok());
  testing::write_file(dir.path() + "/ds/" + kDatasetLockName, "");
  std::unique_ptr<StoreLock> lock;
  ASSERT_TRUE(lock_dataset_dir(*store, "", dir.path() + "/ds", &lock).ok());
  EXPECT_FALSE(lock->created());
  remove_dataset_lock(*store, "", &lock);
  EntryInfo info;
  ASSERT_TRUE(store->stat(kDatasetLockName, &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kFile);
}

}  // namespace
}  // namespace iofab
