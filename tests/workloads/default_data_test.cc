// The default data on disk (no compressibility, no dedup asked): what the writing phases leave (--keep)
// must not shrink under a compressor with a window longer than any file (zstd at level 19 with long
// distance matching over a 128 MiB window, xz at -9), and no 4 KiB block of a file may equal another at
// any 512-byte-aligned shift (a dedup engine's units). Before the counter-mode generator, a worker's
// buffers were filled once and stamped per write: an ingest file repeated at the buffers' period and
// zstd -3 alone shrank it to 0.128 (issue 32, item 12).
#include <gtest/gtest.h>
#include <zstd.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "phase_harness.h"
#ifdef IOFAB_TEST_LZMA
#include <lzma.h>
#endif

namespace iofab::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Every regular file below folder whose path holds part, read whole.
std::vector<std::string> files_below(const std::string& folder, std::string_view part) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(folder)) {
    if (e.is_regular_file() && e.path().string().find(part) != std::string::npos) {
      out.push_back(read_file(e.path().string()));
    }
  }
  return out;
}

std::string joined(const std::vector<std::string>& files) {
  std::string all;
  for (const std::string& f : files) all += f;
  return all;
}

// zstd's compressed / original size at level, with long distance matching over a 2^27-byte window (the
// whole of every buffer here: `zstd --long=27`).
double zstd_long_fraction(const std::string& data, int level) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(c, ZSTD_c_enableLongDistanceMatching, 1);
  ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 27);
  std::vector<char> out(ZSTD_compressBound(data.size()));
  const size_t n = ZSTD_compress2(c, out.data(), out.size(), data.data(), data.size());
  ZSTD_freeCCtx(c);
  EXPECT_FALSE(ZSTD_isError(n)) << ZSTD_getErrorName(n);
  return static_cast<double>(n) / static_cast<double>(data.size());
}

#ifdef IOFAB_TEST_LZMA
// xz's compressed / original size at preset 6. On a buffer of at most 8 MiB it finds what -9 finds: the
// presets 6 to 9 differ only in the dictionary's size (8 to 64 MiB), and an 8 MiB one already holds the
// whole buffer; -9 would allocate 674 MiB to find nothing more.
double xz_fraction(const std::string& data) {
  std::vector<uint8_t> out(lzma_stream_buffer_bound(data.size()));
  size_t pos = 0;
  const lzma_ret r =
      lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const uint8_t*>(data.data()),
                              data.size(), out.data(), &pos, out.size());
  EXPECT_EQ(r, LZMA_OK);
  return static_cast<double>(pos) / static_cast<double>(data.size());
}
#endif

// How many 4 KiB windows of a file, at 512-byte-aligned offsets, equal an earlier window of any file.
size_t repeated_windows(const std::vector<std::string>& files) {
  std::unordered_set<std::string_view> seen;
  size_t repeats = 0;
  for (const std::string& f : files) {
    for (size_t at = 0; at + 4096 <= f.size(); at += 512)
      repeats += !seen.insert({f.data() + at, 4096}).second;
  }
  return repeats;
}

TEST(DefaultData, AnIngestFileShrinksUnderNoCompressorAndWindow) {
  PhaseHarness h;
  PhaseResult r;
  // One worker's file as ingest writes it: 1 MiB blocks from 4 buffers in turn.
  const json p = {{"file_size", "8MiB"}, {"block_size", "1MiB"}, {"queue_depth", 4}, {"engine", "psync"}};
  ASSERT_TRUE(h.run("ingest", "ingest", p, &r, true).ok());
  const std::vector<std::string> files = files_below(h.path() + "/ingest", "");
  ASSERT_EQ(files.size(), 1u);
  ASSERT_EQ(files[0].size(), 8u << 20);
  EXPECT_GE(zstd_long_fraction(files[0], 19), 0.99);
#ifdef IOFAB_TEST_LZMA
  EXPECT_GE(xz_fraction(files[0]), 0.99);
#endif
  EXPECT_EQ(repeated_windows(files), 0u);
}

TEST(DefaultData, IngestFilesOfEveryWorkerDifferAtAnyShift) {
  PhaseHarness h;
  PhaseResult r;
  const json p = {{"file_size", "2MiB"},    {"files_per_worker", 2}, {"workers", 2},
                  {"block_size", "128KiB"}, {"queue_depth", 4},      {"engine", "psync"}};
  ASSERT_TRUE(h.run("ingest", "ingest", p, &r, true).ok());
  const std::vector<std::string> files = files_below(h.path() + "/ingest", "");
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(repeated_windows(files), 0u);
  EXPECT_GE(zstd_long_fraction(joined(files), 3), 0.99);
}

class DefaultCheckpointData : public ::testing::TestWithParam<const char*> {};

TEST_P(DefaultCheckpointData, NoBlockRepeatsAcrossWritersAndSteps) {
  // Two writers; in sync mode two checkpoints kept, so every step's bytes are checked against the last
  // one's (async runs one: a second would have to wait for the first to drain, a matter of timing).
  const bool sync = std::string(GetParam()) == "sync";
  PhaseHarness h;
  PhaseResult w;
  const json ckpt = {{"checkpoint_size", "4MiB"},
                     {"count", sync ? 2 : 1},
                     {"keep", 2},
                     {"gap", 0},
                     {"workers", 2},
                     {"block_size", "256KiB"},
                     {"queue_depth", 4},
                     {"engine", "psync"},
                     {"mode", GetParam()}};
  Status s = h.run("checkpoint", "checkpoint", ckpt, &w, true);
  ASSERT_TRUE(s.ok()) << s.message();
  const std::vector<std::string> files = files_below(h.path() + "/checkpoint", "shard-");
  ASSERT_EQ(files.size(), sync ? 4u : 2u);
  EXPECT_EQ(repeated_windows(files), 0u);
  EXPECT_GE(zstd_long_fraction(joined(files), 3), 0.99);
}

INSTANTIATE_TEST_SUITE_P(Modes, DefaultCheckpointData, ::testing::Values("sync", "async"));

TEST(DefaultData, DatasetShardsDoNotShrink) {
  PhaseHarness h;
  PhaseResult r;
  const json p = {{"layout", "shards"},      {"num_samples", 64}, {"sample_size", "64KiB"},
                  {"samples_per_shard", 16}, {"epochs", 1},       {"batch_size", 16},
                  {"engine", "psync"}};
  Status s = h.run("train_read", "train", p, &r, true);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.metrics["corrupt_samples"], 0);
  const std::vector<std::string> shards = files_below(h.path(), "/data/");
  ASSERT_EQ(shards.size(), 4u);
  EXPECT_EQ(repeated_windows(shards), 0u);
  EXPECT_GE(zstd_long_fraction(joined(shards), 3), 0.99);
}

}  // namespace
}  // namespace iofab::testing
