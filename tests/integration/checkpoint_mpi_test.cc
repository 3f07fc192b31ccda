// Checkpoint and restore across ranks under mpirun: writers spread over the
// ranks, and every rank reads on restore.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

TEST(MpiCheckpoint, TwoRanksWithFanoutTwoReadTwiceTheBytesWritten) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/s.json", R"({
    "defaults": {"engine": "psync", "workers": 2, "block_size": "256KiB", "queue_depth": 4},
    "phases": [
      {"kind": "checkpoint", "checkpoint_size": "16MiB", "count": 2, "gap": "10ms"},
      {"kind": "restore", "fanout": 2}
    ]})");
  const std::string report = dir.path() + "/r.json";
  CommandResult r =
      mpirun_iofab(2, {"run", dir.path() + "/s.json", "--target", dir.path() + "/t", "--out", report, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = json::parse(read_file(report));
  EXPECT_EQ(j["cluster"]["ranks"], 2);
  const json& ck = j["phases"][0]["result"];
  const json& rs = j["phases"][1]["result"];
  // 2 ranks x 2 workers: 4 shards of 4 MiB, written by both ranks.
  EXPECT_EQ(ck["metrics"]["shards"], 4);
  EXPECT_EQ(ck["metrics"]["checkpoint_bytes"], 16 << 20);
  EXPECT_EQ(ck["metrics"]["write_bytes"], 2 * (16 << 20));
  ASSERT_EQ(ck["details"]["per_rank"].size(), 2u);
  EXPECT_EQ(ck["details"]["per_rank"][0]["bytes"], 2 * (8 << 20));
  EXPECT_EQ(ck["details"]["per_rank"][1]["bytes"], 2 * (8 << 20));
  // Every rank reads: twice the bytes of the checkpoint, shared by both ranks.
  EXPECT_EQ(rs["metrics"]["read_bytes"], 2 * ck["metrics"]["checkpoint_bytes"].get<double>());
  EXPECT_EQ(rs["metrics"]["read_write_ratio"], 2);
  EXPECT_EQ(rs["metrics"]["corrupt_shards"], 0);
  ASSERT_EQ(rs["details"]["per_rank"].size(), 2u);
  EXPECT_EQ(rs["details"]["per_rank"][0]["bytes"], 16 << 20);
  EXPECT_EQ(rs["details"]["per_rank"][1]["bytes"], 16 << 20);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path() + "/t"));
}

TEST(MpiCheckpoint, ACorruptShardWrittenByRankOneFailsEveryRanksRestore) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/s.json", R"({
    "defaults": {"engine": "psync", "workers": 1, "block_size": "256KiB", "queue_depth": 4},
    "phases": [{"kind": "checkpoint", "checkpoint_size": "8MiB", "count": 1, "gap": 0}]})");
  CommandResult r = mpirun_iofab(2, {"run", dir.path() + "/s.json", "--target", dir.path() + "/a", "--out",
                               dir.path() + "/a.json", "-q", "--keep"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string step =
      json::parse(read_file(dir.path() + "/a.json"))["target"]["run_folder"].get<std::string>() +
      "/checkpoint/step-1";
  json manifest = json::parse(read_file(step + "/manifest.json"));
  ASSERT_EQ(manifest["shards"].size(), 2u);
  EXPECT_EQ(manifest["shards"][1]["rank"], 1);  // shard 1 is rank 1's
  std::filesystem::remove(step + "/shard-00001-of-00002.bin");
  write_file(
      dir.path() + "/r.json",
      R"({"phases": [{"kind": "restore", "engine": "psync", "fanout": 2, "from": ")" + step + R"("}]})");
  r = mpirun_iofab(2, {"run", dir.path() + "/r.json", "--target", dir.path() + "/b", "--out",
                 dir.path() + "/b.json", "-q"});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // a verification failure: failed, not error
  json j = json::parse(read_file(dir.path() + "/b.json"));
  EXPECT_EQ(j["phases"][0]["status"], "failed");
  EXPECT_EQ(j["phases"][0]["result"]["metrics"]["corrupt_shards"], 1);
  EXPECT_NE(j["phases"][0]["reason"].get<std::string>().find("shard-00001-of-00002.bin: missing"),
            std::string::npos)
      << j["phases"][0]["reason"];
}

// A 2-rank DCP checkpoint of a model whose replicas all hold the same state (ZeRO 0): with
// replica_writer first, rank 0 writes everything (skew 2) and rank 1 an empty file; spread shares it
// out; .metadata is the commit, and every rank then loads its tensors back.
TEST(MpiCheckpoint, TwoRankDcpShowsTheSkewOfItsReplicaWriter) {
  TempDir dir("/dev/shm");
  for (const char* writer : {"first", "spread"}) {
    write_file(dir.path() + "/s.json", std::string(R"({
      "defaults": {"engine": "psync", "workers": 1, "block_size": "64KiB", "queue_depth": 4},
      "phases": [
        {"kind": "checkpoint", "layout": "dcp", "replica_writer": ")") + writer + R"(", "count": 1, "gap": 0,
         "model": {"layers": 2, "hidden": 256, "ffn": 512, "vocab": 1000, "heads": 4, "kv_heads": 2,
                   "tensor": 1, "data": 2, "zero": 0}},
        {"kind": "restore", "read": "tensors"}
      ]})");
    const std::string report = dir.path() + "/" + writer + ".json";
    CommandResult r = mpirun_iofab(2, {"run", dir.path() + "/s.json", "--target", dir.path() + "/t", "--out",
                                       report, "-q", "--keep"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    json j = json::parse(read_file(report));
    const json& ck = j["phases"][0]["result"];
    const json& rs = j["phases"][1]["result"];
    const std::string step = j["target"]["run_folder"].get<std::string>() + "/checkpoint/step-1";
    EXPECT_TRUE(std::filesystem::exists(step + "/.metadata")) << writer;
    EXPECT_FALSE(std::filesystem::exists(step + "/manifest.json")) << writer;
    const double skew = ck["metrics"]["rank_bytes_skew"];
    const auto& per_rank = ck["details"]["per_rank"];
    ASSERT_EQ(per_rank.size(), 2u);
    if (std::string(writer) == "first") {
      EXPECT_DOUBLE_EQ(skew, 2.0);
      EXPECT_EQ(per_rank[1]["bytes"], 0) << per_rank;
      EXPECT_TRUE(std::filesystem::exists(step + "/__0_0.distcp"));
      // Rank 1 has nothing to write and still creates (and fsyncs) its file, as DCP's write_data does.
      ASSERT_TRUE(std::filesystem::exists(step + "/__1_0.distcp"));
      EXPECT_EQ(std::filesystem::file_size(step + "/__1_0.distcp"), 0u);
    } else {
      EXPECT_LT(skew, 1.2);
      EXPECT_GT(per_rank[1]["bytes"].get<double>(), 0) << per_rank;
    }
    // Both replicas load the whole model: twice the checkpoint, every byte checked.
    // (the tensors' bytes: the files less torch.save's framing around each record)
    const double tensor_bytes = ck["metrics"]["checkpoint_bytes"].get<double>() -
                                ck["details"]["layout"]["torch_framing_bytes"].get<double>();
    EXPECT_EQ(rs["metrics"]["read_bytes"], 2 * tensor_bytes) << writer;
    EXPECT_EQ(rs["metrics"]["verified_bytes"], rs["metrics"]["read_bytes"]) << writer;
    EXPECT_EQ(rs["metrics"]["corrupt_shards"], 0) << writer;
  }
}

}  // namespace
}  // namespace iofab::testing
