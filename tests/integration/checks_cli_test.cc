// Checks that passed on figures nobody measured, and suites that validated and then failed late (issue 28),
// through the iofab binary: each either reports the figure as not measured or exits 2 naming the field,
// before anything is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

const json* find_phase(const json& report, const std::string& name) {
  for (const auto& p : report["phases"]) {
    if (p["name"] == name) return &p;
  }
  return nullptr;
}

bool any_contains(const json& list, const std::string& part) {
  for (const auto& s : list) {
    if (s.is_string() && contains(s.get<std::string>(), part)) return true;
  }
  return false;
}

// Engine null reads no byte: restore said "pass corrupt_shards == 0" on a corrupt shard, and model_load
// with weights_from called intact files corrupt ("header length 0").
TEST(ChecksCli, WithEngineNullVerificationFiguresAreNotMeasuredAndIntactFilesAreNotCorrupt) {
  TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json", report = dir.path() + "/r.json";
  write_file(suite, R"({"defaults": {"direct": false, "workers": 1, "block_size": "64KiB", "queue_depth": 2},
    "phases": [
      {"kind": "checkpoint", "name": "ckpt", "engine": "psync", "checkpoint_size": "1MiB", "count": 1,
       "interval": "1h", "gap": "10ms"},
      {"kind": "restore", "name": "restore", "engine": "null", "drop_cache": false},
      {"kind": "model_load", "name": "write", "engine": "psync", "max_shard_size": "1MB", "drop_cache": false,
       "model": {"layers": 1, "hidden": 64, "ffn": 128, "vocab": 256, "heads": 2, "kv_heads": 1}},
      {"kind": "model_load", "name": "load", "engine": "null", "weights_from": "write", "drop_cache": false}]})");
  CommandResult r = run_iofab({"run", suite, "--target", dir.path() + "/t", "--out", report, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(read_file(report));
  const json* restore = find_phase(j, "restore");
  ASSERT_NE(restore, nullptr);
  for (const char* m : {"corrupt_shards", "verified_bytes", "verify_bytes_per_s"}) {
    EXPECT_FALSE((*restore)["result"]["metrics"].contains(m)) << m << " reported though nothing was read";
  }
  EXPECT_TRUE(any_contains((*restore)["warnings"],
                           "corrupt_shards, verified_bytes and verify_bytes_per_s are "
                           "not measured"))
      << (*restore)["warnings"];
  const json* load = find_phase(j, "load");
  ASSERT_NE(load, nullptr);
  EXPECT_EQ((*load)["status"], "passed") << (*load)["reason"];
  EXPECT_FALSE((*load)["result"]["metrics"].contains("corrupt_files"));
  EXPECT_TRUE((*load)["result"]["details"]["bad_files"].empty()) << (*load)["result"]["details"]["bad_files"];
  // The check itself is refused when the suite is read.
  r = run_iofab({"validate", suite, "--set",
                 R"(phases.restore.checks=[{"metric": "corrupt_shards", "op": "==", "value": 0}])"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains(r.err, "phases[1].checks[0].metric: corrupt_shards is not measured with engine null"))
      << r.err;
}

// request_errors on a folder failed "no value: phase failed" after the run; now refused before it.
TEST(ChecksCli, ACheckOnAnObjectStoreFigureIsRefusedForAFolderTarget) {
  TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json";
  write_file(suite, R"({"phases": [{"kind": "ingest", "engine": "psync", "file_size": "1MiB",
    "checks": [{"metric": "request_errors", "op": "==", "value": 0}]}]})");
  const std::string needle =
      "phases[0].checks[0].metric: request_errors is a figure of an object store's requests, measured only "
      "on an "
      "s3:// target; the target " +
      dir.path() + "/t is a folder";
  CommandResult r = run_iofab({"validate", suite, "--target", dir.path() + "/t"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains(r.err, needle)) << r.err;
  r = run_iofab({"run", suite, "--target", dir.path() + "/t", "--out", dir.path() + "/r.json", "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains(r.err, needle)) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/t"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/r.json"));
  // Without a target, validate checks what it can: the suite alone is fine.
  EXPECT_EQ(run_iofab({"validate", suite}).exit_code, 0);
}

// --scale nan was taken for "not given" (and skipped the "no checkpoint phase" error); --rank-timeout ""
// for the default; plan --model kept the last of a repeated key.
TEST(ChecksCli, ANanScaleAnEmptyRankTimeoutAndARepeatedModelKeyAreRefused) {
  TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json";
  write_file(suite, R"({"phases": [{"kind": "ingest", "engine": "psync", "file_size": "1MiB"}]})");
  for (const char* bad : {"nan", "inf", "0.5", "1e13", "x"}) {
    CommandResult r = run_iofab({"run", suite, "--target", dir.path(), "--scale", bad, "-q"});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_TRUE(contains(r.err, "--scale: expected a number from 1 to 1e12")) << bad << ": " << r.err;
  }
  CommandResult r = run_iofab({"run", suite, "--target", dir.path(), "--rank-timeout", "", "-q"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--rank-timeout: expected a duration from 1s to 7 days")) << r.err;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(e.path().filename(), "s.json") << "written: " << e.path();
  }
  r = run_iofab({"plan", "--preset", "llama3-8b", "--model", R"({"layers": 80, "layers": 2})"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains(r.err, "--model: the top level: the key \"layers\" appears twice")) << r.err;
}

// reshard_to failed after the checkpoint phase had written; now the suite is refused naming the field.
TEST(ChecksCli, AReshardingRestoreOfACheckpointWithNoTensorIndexIsRefusedBeforeWriting) {
  TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json";
  write_file(suite,
             R"({"phases": [{"kind": "checkpoint", "name": "ckpt", "checkpoint_size": "1MiB", "count": 1},
    {"kind": "restore", "reshard_to": {"tensor": 2}}]})");
  CommandResult r =
      run_iofab({"run", suite, "--target", dir.path() + "/t", "--out", dir.path() + "/r.json", "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains(r.err,
                       "phases[1].reshard_to: loads tensors, but checkpoint phase ckpt writes no tensor "
                       "index"))
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/t"));
}

// On s3://, known without asking the server: a prefix that makes keys past 1,024 bytes, and the kinds that
// do not run there (docs/object-storage.md quotes this message).
TEST(ChecksCli, OnAnS3TargetLongKeysAndKindsThatDoNotRunThereAreRefusedWithoutAServer) {
  TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json";
  write_file(suite, R"({"s3": {"endpoint": "http://127.0.0.1:1"},
    "phases": [{"kind": "ingest", "file_size": "1MiB"}]})");
  const std::string target = "s3://bench/" + std::string(1100, 'p');
  CommandResult r = run_iofab({"validate", suite, "--target", target});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains(r.err, "phase ingest would make keys of up to")) << r.err;
  EXPECT_TRUE(contains(r.err, "S3 takes keys of at most 1024 bytes")) << r.err;
  r = run_iofab({"run", suite, "--target", target, "--out", dir.path() + "/r.json", "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.err;  // not 3: no server was asked (its port refuses)
  EXPECT_TRUE(contains(r.err, "S3 takes keys of at most 1024 bytes")) << r.err;
  write_file(suite, R"({"s3": {"endpoint": "http://127.0.0.1:1"}, "phases": [{"kind": "model_load"}]})");
  r = run_iofab({"validate", suite, "--target", "s3://bench/runs"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains(r.err,
                       "phase model_load: kind model_load does not run on an object store yet; on an "
                       "s3:// target a suite holds ingest, train_read, checkpoint, restore, collectives, "
                       "rdma and metadata phases"))
      << r.err;
}

}  // namespace
}  // namespace iofab::testing
