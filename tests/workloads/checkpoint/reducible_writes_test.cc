// compressibility and dedup in every writing phase: the files the phases leave (--keep) reduce as asked,
// measured with zstd per block and a count of block hashes; the verification paths (checkpoint's xxh3
// and restore's check of every byte, train_read's sample headers) still pass; bad values are refused
// with the key's JSON path.
#include <gtest/gtest.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <unordered_set>
#include <vector>

#include "workloads/phase_harness.h"
#include "workloads/checkpoint/manifest.h"
#include "workloads/checkpoint/tensor_content.h"

namespace iofab::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Every regular file below folder whose name passes keep, read whole.
std::vector<std::string> files_below(const std::string& folder, bool (*keep)(const fs::path&)) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(folder)) {
    if (e.is_regular_file() && keep(e.path())) out.push_back(read_file(e.path().string()));
  }
  return out;
}

struct Reduction {
  double zstd_fraction = 0;   // compressed / original, each block alone
  double dedup_fraction = 0;  // 1 - distinct blocks / blocks
  size_t blocks = 0;
};

// What zstd and a dedup count make of files cut into blocks of block bytes (a file's tail is a block).
Reduction reduction(const std::vector<std::string>& files, size_t block) {
  std::unordered_set<uint64_t> hashes;
  std::vector<char> z(ZSTD_compressBound(block));
  size_t in = 0, out = 0, blocks = 0;
  for (const std::string& f : files) {
    for (size_t off = 0; off < f.size(); off += block) {
      const size_t n = std::min(block, f.size() - off);
      hashes.insert(XXH3_64bits(f.data() + off, n));
      const size_t c = ZSTD_compress(z.data(), z.size(), f.data() + off, n, ZSTD_CLEVEL_DEFAULT);
      EXPECT_FALSE(ZSTD_isError(c));
      in += n;
      out += c;
      ++blocks;
    }
  }
  return {static_cast<double>(out) / static_cast<double>(in),
          1 - static_cast<double>(hashes.size()) / static_cast<double>(blocks), blocks};
}

bool any_file(const fs::path&) { return true; }
bool shard_file(const fs::path& p) { return p.filename().string().rfind("shard-", 0) == 0; }

json merged(json base, const json& extra) {
  for (const auto& [k, v] : extra.items()) base[k] = v;
  return base;
}

TEST(ReducibleWrites, IngestFilesReduceAsAsked) {
  PhaseHarness h;
  PhaseResult r;
  const json p = {{"file_size", "8MiB"},    {"files_per_worker", 2}, {"workers", 2},
                  {"block_size", "128KiB"}, {"queue_depth", 4},      {"engine", "psync"},
                  {"compressibility", 0.5}, {"dedup", 0.3}};
  ASSERT_TRUE(h.run("ingest", "ingest", p, &r, true).ok());
  const Reduction m = reduction(files_below(h.path() + "/ingest", any_file), 128 << 10);
  EXPECT_EQ(m.blocks, 4u * 64);
  EXPECT_NEAR(m.zstd_fraction, 0.5, 0.025);
  EXPECT_NEAR(m.dedup_fraction, 0.3, 0.015);
  const json& d = r.details["data_reducibility"];
  EXPECT_EQ(d["reducible"], true);
  EXPECT_EQ(d["compressibility"], 0.5);
  EXPECT_EQ(d["dedup"], 0.3);
  EXPECT_EQ(d["dedup_block_bytes"], 128 << 10);
  EXPECT_EQ(d["compress_chunk_bytes"], 512);
}

TEST(ReducibleWrites, IngestDefaultsWriteTheIncompressibleDataAndSaySo) {
  PhaseHarness h;
  PhaseResult r;
  const json p = {{"file_size", "2MiB"}, {"block_size", "128KiB"}, {"queue_depth", 4}, {"engine", "psync"}};
  ASSERT_TRUE(h.run("ingest", "ingest", p, &r, true).ok());
  const Reduction m = reduction(files_below(h.path() + "/ingest", any_file), 128 << 10);
  EXPECT_GT(m.zstd_fraction, 0.99);
  EXPECT_EQ(m.dedup_fraction, 0);
  EXPECT_EQ(r.details["data_reducibility"]["reducible"], false);
  EXPECT_EQ(r.details["data_reducibility"]["dedup_block_bytes"], 0);
}

class ReducibleCheckpoint : public ::testing::TestWithParam<const char*> {};

TEST_P(ReducibleCheckpoint, RestoresWithNothingCorruptAndTheShardsReduce) {
  PhaseHarness h;
  PhaseResult w, rd;
  const json ckpt = {
      {"checkpoint_size", "16MiB"}, {"count", 1},       {"gap", 0},          {"workers", 2},
      {"block_size", "256KiB"},     {"queue_depth", 4}, {"engine", "psync"}, {"mode", GetParam()},
      {"compressibility", 0.8},     {"dedup", 0.5}};
  Status s = h.run("checkpoint", "checkpoint", ckpt, &w, true);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(w.details["data_reducibility"]["dedup_block_bytes"], 256 << 10);
  const Reduction m = reduction(files_below(h.path() + "/checkpoint", shard_file), 256 << 10);
  ASSERT_GT(m.blocks, 0u);
  EXPECT_NEAR(m.zstd_fraction, 0.2, 0.01);
  // 32 blocks per shard, each shard of each step a stream of its own: 15 or 16 duplicates in each.
  EXPECT_NEAR(m.dedup_fraction, 0.5, 0.035);
  s = h.run("restore", "restore", {{"workers", 2}, {"fanout", 2}, {"block_size", "256KiB"}}, &rd);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(rd.metrics["corrupt_shards"], 0);
  EXPECT_EQ(rd.metrics["verified_bytes"], 2 * (16 << 20));
}

INSTANTIATE_TEST_SUITE_P(Modes, ReducibleCheckpoint, ::testing::Values("sync", "async"));

class ReducibleDataset : public ::testing::TestWithParam<const char*> {};

TEST_P(ReducibleDataset, SampleHeadersStillVerifyAndTheDataReduce) {
  PhaseHarness h;
  PhaseResult r;
  const json p = {
      {"layout", GetParam()}, {"num_samples", 128}, {"sample_size", "64KiB"}, {"samples_per_shard", 32},
      {"epochs", 1},          {"batch_size", 16},   {"engine", "psync"},      {"compressibility", 0.5},
      {"dedup", 0.3}};
  Status s = h.run("train_read", "train", p, &r, true);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.metrics["corrupt_samples"], 0);
  EXPECT_EQ(r.metrics["samples"], 128);
  EXPECT_EQ(r.details["data_reducibility"]["dedup_block_bytes"], 4096);
  const Reduction m = reduction(
      files_below(h.path(), [](const fs::path& f) { return f.string().find("/data/") != std::string::npos; }),
      4096);
  EXPECT_EQ(m.blocks, 128u * 16);
  // Zstd on 4 KiB alone pays its frame (about 0.2%); each sample's first unit holds its header.
  EXPECT_NEAR(m.zstd_fraction, 0.5, 0.025);
  // A header makes its unit unique: 1 in 16 here. (files: the header's unit is set apart, so 15 units
  // in 16 dedup as asked; shards: a duplicate that repeats a unit holding a header is unique too.)
  EXPECT_NEAR(m.dedup_fraction, 0.3 * 15 / 16, 0.02);
}

INSTANTIATE_TEST_SUITE_P(Layouts, ReducibleDataset, ::testing::Values("files", "shards"));

TEST(ReducibleWrites, ValuesOutsideZeroToOneAreRefusedWithTheirPath) {
  const json bad[] = {1, 1.5, -0.1, "lots", "100%"};
  for (const char* kind : {"ingest", "checkpoint", "train_read"}) {
    for (const char* key : {"compressibility", "dedup"}) {
      for (const json& v : bad) {
        std::string errors;
        EXPECT_EQ(PhaseHarness::parse(kind, {{key, v}}, &errors), nullptr) << kind << " " << key << " " << v;
        EXPECT_NE(errors.find(std::string("phases[0].") + key), std::string::npos) << errors;
      }
    }
    EXPECT_NE(PhaseHarness::parse(kind, {{"compressibility", "50%"}, {"dedup", 0.99}}), nullptr) << kind;
  }
}

TEST(ReducibleWrites, ATensorLayoutRestoresResharded) {
  // dcp: the tensors' content is regenerated and compared slice by slice on a resharded restore, from
  // the manifest's seed and reducibility; and its files, records and padding reduce as asked.
  PhaseHarness h;
  PhaseResult w, rd;
  const json model = {{"layers", 2},   {"hidden", 256}, {"ffn", 1024}, {"vocab", 1000}, {"heads", 4},
                      {"kv_heads", 2}, {"tensor", 2},   {"data", 2},   {"zero", 1}};
  const json ckpt = {{"model", model},   {"layout", "dcp"},   {"count", 1},
                     {"gap", 0},         {"workers", 2},      {"block_size", "4KiB"},
                     {"queue_depth", 4}, {"engine", "psync"}, {"compressibility", 0.5},
                     {"dedup", 0.3},     {"framing", "none"}};  // torch's framing is zeros between records
  Status s = h.run("checkpoint", "ckpt", ckpt, &w, true);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(w.details["data_reducibility"]["dedup_block_bytes"], 4096);
  Manifest meta;
  ASSERT_TRUE(parse_manifest(read_file(h.path() + "/ckpt/step-1/.metadata"), &meta).ok());
  EXPECT_EQ(meta.reduce.compressibility, 0.5);
  EXPECT_EQ(meta.reduce.dedup, 0.3);
  const Reduction m = reduction(
      files_below(h.path() + "/ckpt", [](const fs::path& f) { return f.extension() == ".distcp"; }), 4096);
  // Records are packed back to back: the 4 KiB file blocks across two records are unique, so a little
  // less than asked dedups (the chunks fall on the file's 4 KiB boundaries, or none would).
  EXPECT_NEAR(m.zstd_fraction, 0.5, 0.025);
  EXPECT_GT(m.dedup_fraction, 0.25);
  EXPECT_LE(m.dedup_fraction, 0.3);
  s = h.run("restore", "restore",
            {{"checkpoint", "ckpt"},
             {"engine", "psync"},
             {"workers", 2},
             {"block_size", "4KiB"},
             {"reshard_to", {{"tensor", 1}, {"data", 4}, {"zero", 3}}}},
            &rd);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(rd.details["read"], "tensors");
  EXPECT_EQ(rd.metrics["corrupt_shards"], 0);
  EXPECT_EQ(rd.metrics["verified_bytes"], w.metrics["checkpoint_bytes"]);
}

TEST(ReducibleWrites, TensorBytesAreTheSameMadeWholeOrInPiecesAtAnyFilePhase) {
  // A restore regenerates any slice on its own: it must equal those bytes of the whole.
  const Reducibility r{0.5, 0.3};
  std::vector<unsigned char> whole(70000), piece(70000);
  for (uint64_t offset : {0u, 1u, 4095u, 5000u}) {
    for (uint64_t phase : {0u, 3u, 4095u, 123456u}) {
      fill_tensor_bytes(1, 2, 3, offset, whole.data(), whole.size(), r, phase);
      uint64_t bad = 0;
      EXPECT_TRUE(check_tensor_bytes(1, 2, 3, offset, whole.data(), whole.size(), &bad, r, phase));
      for (size_t from : {size_t{7}, size_t{4096}, size_t{60001}}) {
        const size_t n = whole.size() - from - 3;
        fill_tensor_bytes(1, 2, 3, offset + from, piece.data(), n, r, phase);
        EXPECT_TRUE(std::equal(piece.begin(), piece.begin() + static_cast<ptrdiff_t>(n),
                               whole.begin() + static_cast<ptrdiff_t>(from)))
            << "offset " << offset << " phase " << phase << " from " << from;
      }
      whole[4242] ^= 1;
      EXPECT_FALSE(check_tensor_bytes(1, 2, 3, offset, whole.data(), whole.size(), &bad, r, phase));
      EXPECT_EQ(bad, offset + 4242);
    }
  }
}

TEST(ReducibleWrites, ADatasetMadeWithOtherReducibilityIsRegenerated) {
  PhaseHarness h;
  const json base = {{"num_samples", 64}, {"sample_size", "16KiB"}, {"epochs", 1},
                     {"batch_size", 16},  {"engine", "psync"},      {"dataset_dir", h.path() + "/ds"}};
  PhaseResult first, second;
  ASSERT_TRUE(h.run("train_read", "train", base, &first).ok());
  ASSERT_TRUE(h.run("train_read", "train", merged(base, {{"compressibility", 0.5}}), &second).ok());
  EXPECT_NE(second.details["dataset"].value("regenerated_because", "").find("compressibility"),
            std::string::npos)
      << second.details["dataset"].dump();
}

}  // namespace
}  // namespace iofab::testing
