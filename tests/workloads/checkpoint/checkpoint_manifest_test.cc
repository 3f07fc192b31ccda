#include "workloads/checkpoint/manifest.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/store/posix_store.h"
#include "test_util.h"
#include "workloads/checkpoint/folder_layout.h"
#include "workloads/checkpoint/phase_folder.h"
#include "workloads/checkpoint/xxh3.h"
#include "workloads/restore/checkpoint_source.h"

namespace iofab {
namespace {

using nlohmann::json;

Manifest sample() {
  Manifest m;
  m.step = 3;
  m.phase = "checkpoint";
  m.created = "2026-01-01T00:00:00Z";
  m.committed_unix_ns = 1767225600000000000ULL;
  m.full_checkpoint_bytes = 2.45e12;
  m.scale = 1000;
  m.shards = {{"shard-00000-of-00002.bin", 8192, 0x0123456789abcdefULL, 0, 0, -1, {}},
              {"shard-00001-of-00002.bin", 4096, 0xfedcba9876543210ULL, 1, 0, -1, {}}};
  return m;
}

TEST(CheckpointManifest, Xxh3IsThePlainXxh3Of64Bits) {
  // XXH3_64bits of empty input with seed 0, as xxhsum -H3 prints it.
  EXPECT_EQ(xxh3_hex(xxh3_of("", 0)), "2d06800538d394c2");
  EXPECT_EQ(parse_xxh3_hex("2d06800538d394c2"), 0x2d06800538d394c2ULL);
  EXPECT_EQ(parse_xxh3_hex("2D06800538D394C2"), 0x2d06800538d394c2ULL);
  EXPECT_FALSE(parse_xxh3_hex("2d06800538d394c"));
  EXPECT_FALSE(parse_xxh3_hex("2d06800538d394cg"));
  EXPECT_EQ(xxh3_hex(0), "0000000000000000");
}

TEST(CheckpointManifest, StreamingHashEqualsOneShotWhateverTheChunks) {
  std::vector<unsigned char> data(1 << 20);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 131 + (i >> 9));
  const uint64_t whole = xxh3_of(data.data(), data.size());
  for (size_t chunk : {1u << 20, 4096u, 1000u, 7u}) {
    StreamingXxh3 h;
    for (size_t off = 0; off < data.size(); off += chunk)
      h.update(data.data() + off, std::min(chunk, data.size() - off));
    EXPECT_EQ(h.digest(), whole) << chunk;
  }
  StreamingXxh3 h;
  h.update(data.data(), 100);
  h.reset();
  h.update(data.data(), data.size());
  EXPECT_EQ(h.digest(), whole);
  data[4321] ^= 1;
  EXPECT_NE(xxh3_of(data.data(), data.size()), whole);
}

TEST(CheckpointManifest, RoundTrips) {
  const Manifest m = sample();
  Manifest back;
  ASSERT_TRUE(parse_manifest(manifest_to_json_text(m), &back).ok());
  EXPECT_EQ(back.step, 3u);
  EXPECT_EQ(back.phase, "checkpoint");
  EXPECT_EQ(back.committed_unix_ns, m.committed_unix_ns);
  EXPECT_EQ(back.full_checkpoint_bytes, 2.45e12);
  EXPECT_EQ(back.scale, 1000);
  ASSERT_EQ(back.shards.size(), 2u);
  EXPECT_EQ(back.shards[1].name, "shard-00001-of-00002.bin");
  EXPECT_EQ(back.shards[1].bytes, 4096u);
  EXPECT_EQ(back.shards[1].xxh3, 0xfedcba9876543210ULL);
  EXPECT_EQ(back.shards[1].rank, 1);
  EXPECT_EQ(back.total_bytes(), 12288u);
  json j = json::parse(manifest_to_json_text(m));
  EXPECT_EQ(j["shards"][0]["xxh3"], "0123456789abcdef");
  EXPECT_EQ(j["total_bytes"], 12288);
  EXPECT_EQ(j["hash"], "xxh3-64");
}

TEST(CheckpointManifest, FullBytesFallsBackToTheShards) {
  Manifest m = sample();
  m.full_checkpoint_bytes = 0;
  EXPECT_EQ(m.full_bytes(), 12288);
}

// Each broken manifest is refused with the field named.
TEST(CheckpointManifest, ErrorsNameTheField) {
  struct Case {
    std::string edit;  // JSON patch path
    json value;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"/format", "other", "manifest.format"},
      {"/version", 2, "manifest.version"},
      {"/step", -1, "manifest.step"},
      {"/shards", json::array(), "manifest.shards"},
      {"/shards/1/name", "../escape", "manifest.shards[1].name"},
      {"/shards/1/name", "a/b/c", "manifest.shards[1].name"},
      {"/shards/1/name", "manifest.json", "manifest.shards[1].name"},
      {"/shards/1/name", "shard-00000-of-00002.bin", "listed twice"},
      {"/shards/0/bytes", "big", "manifest.shards[0].bytes"},
      {"/shards/0/xxh3", "xyz", "manifest.shards[0].xxh3"},
      {"/total_bytes", 1, "manifest.total_bytes"},
      {"/scale", 0.5, "manifest.scale"},
  };
  for (const auto& c : cases) {
    json j = json::parse(manifest_to_json_text(sample()));
    j[json::json_pointer(c.edit)] = c.value;
    Manifest out;
    Status s = parse_manifest(j.dump(), &out);
    EXPECT_FALSE(s.ok()) << c.edit;
    EXPECT_NE(s.message().find(c.says), std::string::npos) << c.edit << ": " << s.message();
  }
  Manifest out;
  EXPECT_FALSE(parse_manifest("not json", &out).ok());
  EXPECT_FALSE(parse_manifest("[1]", &out).ok());
}

TEST(CheckpointManifest, SafeShardNames) {
  EXPECT_TRUE(is_safe_shard_name("shard-00000-of-00008.bin"));
  EXPECT_TRUE(is_safe_shard_name("__0_0.distcp"));
  // Megatron's files sit one folder down.
  EXPECT_TRUE(is_safe_shard_name("mp_rank_01_002/distrib_optim.pt"));
  for (const char* n : {"", ".", "..", "a/b/c", "/abs", "a/", "../x", "a/..", "manifest.json", ".metadata",
                        "tab\there"})
    EXPECT_FALSE(is_safe_shard_name(n)) << n;
  EXPECT_FALSE(is_safe_shard_name(std::string(256, 'a')));
}

TEST(CheckpointManifest, WrittenOnceFsyncedAndReadBack) {
  testing::TempDir dir("/dev/shm");
  std::unique_ptr<Store> store;
  ASSERT_TRUE(open_posix_store(dir.path(), false, &store).ok());
  ASSERT_TRUE(write_manifest(*store, "", sample(), kCheckpointManifestName).ok());
  // Never overwritten: a second write into the same folder is refused.
  EXPECT_FALSE(write_manifest(*store, "", sample(), kCheckpointManifestName).ok());
  Manifest back;
  Status s = read_manifest(*store, "", dir.path(), &back);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(back.shards.size(), 2u);
  // A broken manifest on disk names the folder and the field.
  testing::write_file(dir.path() + "/manifest.json",
                      R"({"format": "iofab-checkpoint", "version": 1, "step": 1, "shards": 3})");
  s = read_manifest(*store, "", dir.path(), &back);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir.path() + "/manifest.shards"), std::string::npos) << s.message();
  unlink((dir.path() + "/manifest.json").c_str());
  s = read_manifest(*store, "", dir.path(), &back);
  EXPECT_NE(s.message().find("not a committed checkpoint"), std::string::npos) << s.message();
}

TEST(CheckpointManifest, StepFolders) {
  EXPECT_EQ(step_dir_name(7), "step-7");
  EXPECT_EQ(step_tmp_name(7), "step-7.tmp");
  EXPECT_EQ(parse_step_dir_name("step-12"), 12u);
  for (const char* n : {"step-", "step-1.tmp", "step-x", "steps-1", "step--1", "step-99999999999999999999"}) {
    EXPECT_FALSE(parse_step_dir_name(n)) << n;
  }
  testing::TempDir dir("/dev/shm");
  for (const char* d : {"step-10", "step-2", "step-3.tmp", "step-6", "other"})
    std::filesystem::create_directory(dir.path() + "/" + d);
  testing::write_file(dir.path() + "/step-10/manifest.json", "{}");
  testing::write_file(dir.path() + "/step-2/.metadata", "{}");
  // A dcp step whose coordinator never wrote .metadata: its data, no commit.
  testing::write_file(dir.path() + "/step-6/__0_0.distcp", "tensors");
  testing::write_file(dir.path() + "/step-4", "a file, not a step");
  std::filesystem::create_directory_symlink(dir.path() + "/step-2", dir.path() + "/step-5");
  std::unique_ptr<Store> store;
  ASSERT_TRUE(open_posix_store(dir.path(), false, &store).ok());
  StepListing steps;
  ASSERT_TRUE(list_steps(*store, "", &steps).ok());
  EXPECT_EQ(steps.committed, (std::vector<uint64_t>{2, 10}));  // sorted by number, links and files ignored
  EXPECT_EQ(steps.tmp, (std::vector<std::string>{"step-3.tmp", "step-6"}));
}

}  // namespace
}  // namespace iofab
