// The train_read dataset: sizes from a seeded distribution, where samples
// live, what generation writes, and how a folder is recognised for reuse.
#include "workloads/dataset/dataset.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "harness/fs/run_dir.h"
#include "workloads/dataset_at_fd.h"
#include "harness/store/posix_store.h"
#include "test_util.h"

namespace iofab {
namespace {

using testing::TempDir;

DatasetSpec spec_of(DatasetLayoutKind layout, uint64_t n, uint64_t size) {
  DatasetSpec s;
  s.layout = layout;
  s.num_samples = n;
  s.sample_size = size;
  s.files_per_dir = 10;
  s.samples_per_shard = 7;
  s.seed = 11;
  s.resolve_size_bounds();
  return s;
}

struct Moments {
  double mean = 0, sd = 0;
  uint32_t min = UINT32_MAX, max = 0;
};

Moments moments(const DatasetSpec& s, uint64_t n) {
  Moments m;
  double sum = 0, sq = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const double x = draw_sample_size(s, i);
    sum += x;
    sq += x * x;
    m.min = std::min<uint32_t>(m.min, static_cast<uint32_t>(x));
    m.max = std::max<uint32_t>(m.max, static_cast<uint32_t>(x));
  }
  m.mean = sum / static_cast<double>(n);
  m.sd = std::sqrt(sq / static_cast<double>(n) - m.mean * m.mean);
  return m;
}

TEST(DatasetSizes, FixedNormalLognormalHaveTheirMeanAndSpread) {
  DatasetSpec s = spec_of(DatasetLayoutKind::kShards, 0, 100000);
  Moments f = moments(s, 1000);
  EXPECT_EQ(f.min, 100000u);
  EXPECT_EQ(f.max, 100000u);

  s.distribution = SizeDistribution::kNormal;
  s.sample_size_stdev = 10000;
  s.sample_size_max = 0;
  s.resolve_size_bounds();
  EXPECT_EQ(s.sample_size_max, 160000u);  // mean + 6 stdev
  Moments nm = moments(s, 40000);
  EXPECT_NEAR(nm.mean, 100000, 500);
  EXPECT_NEAR(nm.sd, 10000, 500);

  s.distribution = SizeDistribution::kLognormal;
  s.sample_size_stdev = 50000;
  s.sample_size_max = 1 << 20;
  Moments ln = moments(s, 40000);
  EXPECT_NEAR(ln.mean, 100000, 3000);
  EXPECT_NEAR(ln.sd, 50000, 4000);
  EXPECT_GT(ln.max, 200000u) << "a lognormal has a long right tail";

  // Clamped to [min, max].
  s.distribution = SizeDistribution::kNormal;
  s.sample_size_stdev = 100000;
  s.sample_size_min = 50000;
  s.sample_size_max = 120000;
  Moments c = moments(s, 5000);
  EXPECT_EQ(c.min, 50000u);
  EXPECT_EQ(c.max, 120000u);
}

// unet3d's sizes as DLIO generates them (argonne-lcf/dlio_benchmark, branch mlperf_storage_v2.0:
// utils/config.py derive_configurations lines 312-313, dimension = int(sqrt(record_length)) = 12107 and
// dimension_stdev = record_length_stdev / 2 / sqrt(record_length) = 2822.2; data_generator/data_generator.py
// get_dimension line 56, two normal draws a sample, max(int(d), 1) each; npz_generator.py line 50, a
// uint8 array of d1 x d2). By hand: the mean is 12107^2 = 146,579,449, the stdev
// sqrt(2 mu^2 s^2 + s^4) = 48.97 MB (not the configured 68.3 MB), and summing P(int(d1) = a) x
// P(int(d2) > 2^28 / a) over a gives 1.401% of samples over 256 MiB (a single normal of stdev 68.3 MB,
// iofab's old preset, gives 3.73%).
TEST(DatasetSizes, DlioProductIsUnet3dsGeneratorsRule) {
  DatasetSpec s = spec_of(DatasetLayoutKind::kFiles, 0, 146600628);
  s.distribution = SizeDistribution::kDlioProduct;
  s.sample_size_stdev = 68341808;
  s.sample_size_min = 4096;
  s.sample_size_max = 0;
  s.resolve_size_bounds();
  EXPECT_NEAR(static_cast<double>(s.sample_size_max), 843334949, 1);  // (12107 + 6 x 2822.2)^2
  constexpr uint64_t kDraws = 400000;
  uint64_t over = 0;
  for (uint64_t i = 0; i < kDraws; ++i) over += draw_sample_size(s, i) > (256u << 20);
  const Moments m = moments(s, kDraws);
  EXPECT_NEAR(m.mean, 146579449, 400000);  // the sampling error of the mean is 77 KB
  EXPECT_NEAR(m.sd, 48.97e6, 0.5e6);
  // The share's sampling error is 0.019 points: 0.1 point is over five of them.
  EXPECT_NEAR(static_cast<double>(over) / kDraws, 0.01401, 0.001);
}

TEST(DatasetSizes, SameSeedSameSizesOtherSeedOthers) {
  DatasetSpec a = spec_of(DatasetLayoutKind::kShards, 0, 4096);
  a.distribution = SizeDistribution::kLognormal;
  a.sample_size_stdev = 1024;
  a.sample_size_max = 0;
  a.resolve_size_bounds();
  DatasetSpec b = a;
  b.seed = 12;
  int same = 0;
  for (uint64_t i = 0; i < 100; ++i) {
    EXPECT_EQ(draw_sample_size(a, i), draw_sample_size(a, i));
    same += draw_sample_size(a, i) == draw_sample_size(b, i);
  }
  EXPECT_LT(same, 20);
}

TEST(DatasetLayout, ShardsPackSamplesBackToBackAndPadTheEnd) {
  DatasetSpec s = spec_of(DatasetLayoutKind::kShards, 30, 1000);
  s.distribution = SizeDistribution::kNormal;
  s.sample_size_stdev = 300;
  s.sample_size_max = 0;
  s.resolve_size_bounds();
  DatasetLayout l(s);
  EXPECT_EQ(l.num_files(), 5u);  // 7 per shard: 7+7+7+7+2
  EXPECT_EQ(l.samples_in(4), 2u);
  uint64_t sample_bytes = 0;
  for (uint64_t f = 0; f < l.num_files(); ++f) {
    uint64_t off = 0;
    for (uint64_t i = l.first_sample(f); i < l.first_sample(f) + l.samples_in(f); ++i) {
      EXPECT_EQ(l.file_of(i), f);
      EXPECT_EQ(l.offset_of(i), off);
      off += l.size_of(i);
    }
    sample_bytes += off;
    EXPECT_EQ(l.file_bytes(f) % kRecordAlignment, 0u);
    EXPECT_GE(l.file_bytes(f), off);
    EXPECT_LT(l.file_bytes(f) - off, kRecordAlignment);
    EXPECT_EQ(l.file_path(f), "shard-" + std::string(6 - std::to_string(f).size(), '0') + std::to_string(f));
  }
  EXPECT_EQ(l.sample_bytes(), sample_bytes);
  EXPECT_EQ(l.total_bytes(), dataset_bytes_on_disk(s));
  EXPECT_GE(l.max_aligned_span(),
            (l.max_sample_size() + kRecordAlignment - 1) / kRecordAlignment * kRecordAlignment);
}

TEST(DatasetLayout, FilesNeverPutMoreThanFilesPerDirInAFolder) {
  DatasetSpec s = spec_of(DatasetLayoutKind::kFiles, 1234, 5000);  // 10 per folder: 3 levels of folders
  DatasetLayout l(s);
  EXPECT_EQ(l.num_files(), 1234u);
  std::map<std::string, std::set<std::string>> children;  // folder -> entries
  std::set<std::string> paths;
  for (uint64_t f = 0; f < l.num_files(); ++f) {
    const std::string p = l.file_path(f);
    EXPECT_TRUE(paths.insert(p).second) << p;
    std::string parent;
    size_t pos = 0;
    while (true) {
      const size_t slash = p.find('/', pos);
      const std::string part = p.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
      children[parent].insert(part);
      if (slash == std::string::npos) break;
      parent = p.substr(0, slash);
      pos = slash + 1;
    }
    EXPECT_EQ(l.file_bytes(f), 8192u);
    EXPECT_EQ(l.offset_of(f), 0u);
  }
  for (const auto& [folder, entries] : children) {
    EXPECT_LE(entries.size(), 10u) << "folder '" << folder << "'";
  }
  EXPECT_EQ(l.file_path(1233), "d1/d2/d3/s1233");
  EXPECT_EQ(l.total_bytes(), dataset_bytes_on_disk(s));
}

void expect_headers(const std::string& data, const DatasetLayout& l) {
  for (uint64_t i = 0; i < l.num_samples(); ++i) {
    const std::string bytes = testing::read_file(data + "/" + l.file_path(l.file_of(i)));
    ASSERT_EQ(bytes.size(), l.file_bytes(l.file_of(i))) << i;
    unsigned char h[kSampleHeader];
    sample_header(l.spec(), i, h);
    const size_t n = std::min<size_t>(kSampleHeader, l.size_of(i));
    EXPECT_EQ(std::memcmp(bytes.data() + l.offset_of(i), h, n), 0) << "sample " << i;
  }
}

class DatasetDir : public ::testing::TestWithParam<DatasetLayoutKind> {};

TEST_P(DatasetDir, GenerateThenRecogniseReuseStaleAndForeign) {
  TempDir dir("/dev/shm");
  DatasetSpec s = spec_of(GetParam(), 200, 3000);  // files: 4 runs of 64, 2 for each rank
  s.distribution = SizeDistribution::kLognormal;
  s.sample_size_stdev = 2000;
  s.sample_size_max = 0;
  s.resolve_size_bounds();
  DatasetLayout l(s);
  int root = open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(root, 0);
  DatasetDirState state;
  std::string why;
  std::vector<std::string> notes;
  ASSERT_TRUE(inspect_dataset_dir(root, l, &state, &why).ok());
  EXPECT_EQ(state, DatasetDirState::kEmpty);

  ASSERT_TRUE(prepare_dataset_dir(root, l, &notes).ok());
  ASSERT_TRUE(inspect_dataset_dir(root, l, &state, &why).ok());
  EXPECT_EQ(state, DatasetDirState::kStale) << "an incomplete dataset is never reused";
  EXPECT_NE(why.find("incomplete"), std::string::npos) << why;

  int data = openat(root, kDataFolder, O_RDONLY | O_DIRECTORY);
  ASSERT_GE(data, 0);
  // Two "ranks" each write their part.
  std::atomic<uint64_t> progress{0};
  uint64_t total = 0;
  for (int r = 0; r < 2; ++r) {
    GenerateOptions go;
    go.rank = r;
    go.ranks = 2;
    go.threads = 3;
    go.progress = &progress;
    uint64_t bytes = 0;
    Status st = generate_dataset_part(data, l, go, &bytes);
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_GT(bytes, 0u);
    total += bytes;
  }
  EXPECT_EQ(total, l.total_bytes());
  EXPECT_EQ(progress.load(), l.total_bytes());
  ASSERT_TRUE(complete_manifest(root, l, 0.5).ok());
  expect_headers(dir.path() + "/data", l);

  ASSERT_TRUE(inspect_dataset_dir(root, l, &state, &why).ok());
  EXPECT_EQ(state, DatasetDirState::kMatches) << why;

  // Another spec: stale, and the message says what differs.
  DatasetSpec other = s;
  other.num_samples = 201;
  ASSERT_TRUE(inspect_dataset_dir(root, DatasetLayout(other), &state, &why).ok());
  EXPECT_EQ(state, DatasetDirState::kStale);
  EXPECT_NE(why.find("num_samples 200 vs 201"), std::string::npos) << why;

  // A damaged file: stale.
  ASSERT_EQ(truncate((dir.path() + "/data/" + l.file_path(3)).c_str(), 5), 0);
  ASSERT_TRUE(inspect_dataset_dir(root, l, &state, &why).ok());
  EXPECT_EQ(state, DatasetDirState::kStale);
  EXPECT_NE(why.find(l.file_path(3)), std::string::npos) << why;

  // Regenerating over it starts clean.
  ASSERT_TRUE(prepare_dataset_dir(root, l, &notes).ok());
  EXPECT_TRUE(testing::list_files(dir.path() + "/data").empty());

  // Anything iofab did not make: foreign.
  testing::write_file(dir.path() + "/notes.txt", "mine");
  ASSERT_TRUE(inspect_dataset_dir(root, l, &state, &why).ok());
  EXPECT_EQ(state, DatasetDirState::kForeign);
  EXPECT_NE(why.find("notes.txt"), std::string::npos) << why;
  close(data);
  close(root);
}

INSTANTIATE_TEST_SUITE_P(Layouts, DatasetDir,
                         ::testing::Values(DatasetLayoutKind::kFiles, DatasetLayoutKind::kShards),
                         [](const auto& p) { return std::string(layout_name(p.param)); });

TEST(DatasetDirForeign, DataWithoutManifestOrAnotherManifestIsNotOurs) {
  TempDir dir("/dev/shm");
  DatasetLayout l(spec_of(DatasetLayoutKind::kShards, 10, 100));
  std::filesystem::create_directory(dir.path() + "/data");
  int root = open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(root, 0);
  DatasetDirState state;
  std::string why;
  ASSERT_TRUE(inspect_dataset_dir(root, l, &state, &why).ok());
  EXPECT_EQ(state, DatasetDirState::kForeign);
  testing::write_file(dir.path() + "/" + kManifestName, R"({"format": "something-else"})");
  ASSERT_TRUE(inspect_dataset_dir(root, l, &state, &why).ok());
  EXPECT_EQ(state, DatasetDirState::kForeign);
  close(root);
}

// Generates spec s into root completely, as the phase does.
void generate_complete(int root, const DatasetLayout& l) {
  std::vector<std::string> notes;
  ASSERT_TRUE(prepare_dataset_dir(root, l, &notes).ok());
  int data = openat(root, kDataFolder, O_RDONLY | O_DIRECTORY);
  ASSERT_GE(data, 0);
  uint64_t bytes = 0;
  ASSERT_TRUE(generate_dataset_part(data, l, GenerateOptions{}, &bytes).ok());
  close(data);
  ASSERT_TRUE(complete_manifest(root, l, 0.1).ok());
}

// docs/faults.md: regenerating deletes only the files the old manifest lists.
TEST_P(DatasetDir, RegeneratingKeepsFilesNoManifestLists) {
  TempDir dir("/dev/shm");
  const DatasetLayout old(spec_of(GetParam(), 40, 3000));  // files: 4 folders of 10
  int root = open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(root, 0);
  generate_complete(root, old);
  const std::string data = dir.path() + "/data/";
  testing::write_file(data + "README.txt", "the user's");
  // One beside iofab's files, in a folder iofab made: the folder must stay for it.
  const std::string beside = old.folder_of(0).empty() ? "mine.bin" : old.folder_of(0) + "/mine.bin";
  testing::write_file(data + beside, "also the user's");

  const DatasetLayout next(spec_of(GetParam(), 25, 5000));
  std::vector<std::string> notes;
  Status st = prepare_dataset_dir(root, next, &notes);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(testing::read_file(data + "README.txt"), "the user's");
  EXPECT_EQ(testing::read_file(data + beside), "also the user's");
  std::set<std::string> left;
  for (const auto& f : testing::list_files(data)) left.insert(f);
  EXPECT_EQ(left, (std::set<std::string>{"README.txt", beside})) << "every listed file goes, nothing else";
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("README.txt"), std::string::npos) << notes[0];

  // The new dataset generates around them and is then reused.
  int data_fd = openat(root, kDataFolder, O_RDONLY | O_DIRECTORY);
  uint64_t bytes = 0;
  ASSERT_TRUE(generate_dataset_part(data_fd, next, GenerateOptions{}, &bytes).ok());
  close(data_fd);
  ASSERT_TRUE(complete_manifest(root, next, 0.1).ok());
  DatasetDirState state;
  std::string why;
  ASSERT_TRUE(inspect_dataset_dir(root, next, &state, &why).ok());
  EXPECT_EQ(state, DatasetDirState::kMatches) << why;
  close(root);
}

TEST_P(DatasetDir, AFileNotListedWhereTheNewDatasetGoesIsRefusedNotRemoved) {
  TempDir dir("/dev/shm");
  const DatasetLayout old(spec_of(GetParam(), 5, 3000));
  int root = open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(root, 0);
  generate_complete(root, old);
  const DatasetLayout next(spec_of(GetParam(), 40, 3000));
  const std::string in_the_way = next.file_path(next.num_files() - 1);  // a path the old one never had
  std::filesystem::create_directories(
      std::filesystem::path(dir.path() + "/data/" + in_the_way).parent_path());
  testing::write_file(dir.path() + "/data/" + in_the_way, "the user's");
  std::vector<std::string> notes;
  Status st = prepare_dataset_dir(root, next, &notes);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("data/" + in_the_way + " is in the way"), std::string::npos) << st.message();
  EXPECT_EQ(testing::read_file(dir.path() + "/data/" + in_the_way), "the user's");
  close(root);
}

TEST(DatasetDirRegenerate, AManifestWhoseSpecIsUnreadableRemovesNothing) {
  TempDir dir("/dev/shm");
  const DatasetLayout l(spec_of(DatasetLayoutKind::kShards, 10, 100));
  std::filesystem::create_directory(dir.path() + "/data");
  testing::write_file(dir.path() + "/data/shard-0", "whose?");
  testing::write_file(
      dir.path() + "/" + kManifestName,
      R"({"format": "iofab-dataset", "version": 1, "complete": false, "spec": {"layout": "tapes"}})");
  int root = open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(root, 0);
  std::vector<std::string> notes;
  Status st = prepare_dataset_dir(root, l, &notes);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("nothing was removed"), std::string::npos) << st.message();
  EXPECT_EQ(testing::read_file(dir.path() + "/data/shard-0"), "whose?");
  close(root);
}

// A second run on the same dataset_dir is refused while the first holds the lock (held here by the test).
TEST(DatasetDirLock, ASecondHolderIsRefusedUntilTheFirstLetsGo) {
  TempDir dir("/dev/shm");
  int root = open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(root, 0);
  std::unique_ptr<Store> store;
  ASSERT_TRUE(open_posix_store(dir.path(), false, &store).ok());
  std::unique_ptr<StoreLock> first;
  ASSERT_TRUE(lock_dataset_dir(*store, "", dir.path(), &first).ok());
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(first->created());
  std::unique_ptr<StoreLock> second;
  Status st = lock_dataset_dir(*store, "", dir.path(), &second);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("in use by another iofab run"), std::string::npos) << st.message();
  EXPECT_EQ(second, nullptr);
  first.reset();
  ASSERT_TRUE(lock_dataset_dir(*store, "", dir.path(), &second).ok());
  EXPECT_NE(second, nullptr);
  second.reset();
  // The lock file is iofab's: a folder holding only it is still empty to inspect.
  DatasetDirState state;
  std::string why;
  ASSERT_TRUE(
      inspect_dataset_dir(root, DatasetLayout(spec_of(DatasetLayoutKind::kShards, 4, 100)), &state, &why)
          .ok());
  EXPECT_EQ(state, DatasetDirState::kEmpty) << why;
  close(root);
}

TEST(DatasetData, EverySectorOfAShardIsUnique) {
  TempDir dir("/dev/shm");
  DatasetSpec s = spec_of(DatasetLayoutKind::kShards, 64, 4096);
  s.samples_per_shard = 64;
  DatasetLayout l(s);
  int root = open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
  std::vector<std::string> notes;
  ASSERT_TRUE(prepare_dataset_dir(root, l, &notes).ok());
  int data = openat(root, kDataFolder, O_RDONLY | O_DIRECTORY);
  uint64_t bytes = 0;
  ASSERT_TRUE(generate_dataset_part(data, l, GenerateOptions{}, &bytes).ok());
  const std::string shard = testing::read_file(dir.path() + "/data/" + l.file_path(0));
  ASSERT_EQ(shard.size(), 64u * 4096);
  std::set<std::string> sectors;
  for (size_t off = 0; off < shard.size(); off += 512) sectors.insert(shard.substr(off, 512));
  EXPECT_EQ(sectors.size(), shard.size() / 512);

  CacheCounts cc;
  ASSERT_TRUE(dataset_cache_pass(data, l, 0, 1, false, &cc).ok());
  EXPECT_EQ(cc.files, 1u);
  EXPECT_EQ(cc.bytes, shard.size());
  EXPECT_EQ(cc.resident_bytes, shard.size()) << "tmpfs pages are the data: always resident";
  close(data);
  close(root);
}

}  // namespace
}  // namespace iofab
