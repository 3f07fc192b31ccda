// The object-store phases (ingest, train_read, checkpoint, restore: docs/object-storage.md) on a mem://
// target, the test-only memory object store (tests/harness/mem_object_store/), through `iofab run`'s own
// code (cmd_run: the runner, the report writer) with the kind's row handed to the runner as a test hands it:
// the report's figures, and what the bucket holds after, object by object. Bad mem:// targets and suites are
// refused as bad input (exit 2), naming the form.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "driver/cli/commands.h"
#include "harness/comm/comm.h"
#include "harness/mem_object_store/mem_bucket.h"
#include "harness/mem_object_store/mem_object_engine.h"
#include "harness/mem_object_store/mem_target.h"
#include "test_util.h"
#include "workloads/dataset/dataset.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

// The four phases an s3:// target runs, small: ingest 6 objects of 1 MiB, train_read 64 samples in 4 shards
// over 2 epochs, two checkpoints of a 1e8-parameter model at 1/1000, a restore with fan-out 2.
const json kPhases = json::parse(R"([
  {"kind": "ingest", "workers": 2, "files_per_worker": 3, "file_size": "1MiB", "block_size": "256KiB",
   "queue_depth": 4},
  {"kind": "train_read", "layout": "shards", "num_samples": 64, "sample_size": "8KiB", "samples_per_shard": 16,
   "batch_size": 8, "epochs": 2, "read_threads": 2, "queue_depth": 4},
  {"kind": "checkpoint", "params": 1e8, "scale": 1000, "count": 2, "gap": "10ms", "interval": "1000h",
   "workers": 2, "block_size": "256KiB"},
  {"kind": "restore", "fanout": 2, "workers": 2, "block_size": "256KiB",
   "checks": [{"metric": "corrupt_shards", "op": "==", "value": 0}]}
])");

struct MemRun {
  int code = -1;
  std::string out, err;
  json report;  // null when none was written
};

// `iofab run SUITE --target TARGET --out REPORT -q [--keep]` with the mem:// kind known to the runner.
MemRun run_on_mem(const json& phases, const std::string& target, bool keep) {
  mem::MemEngineAdded engine;
  const std::vector<RunTargetKind> kinds = mem::kinds_with_mem();
  RunFiles f("/dev/shm");
  write_file(f.suite, json{{"name", "mem-object-store"}, {"phases", phases}}.dump(2));
  RunArgs args;
  args.options.suite = f.suite;
  args.options.quiet = true;
  args.options.keep = keep;
  args.options.target_kinds = &kinds;
  args.target = target;
  args.out = f.report;
  SelfComm comm;
  std::ostringstream out, err;
  MemRun r;
  r.code = cmd_run(comm, args, out, err);
  r.out = out.str();
  r.err = err.str();
  if (std::filesystem::exists(f.report)) {
    r.report = json::parse(read_file(f.report));
    // Validated against docs/report.schema.json with every other report the tests wrote
    // (tests/CMakeLists.txt).
    if (const char* dir = std::getenv("IOFAB_TEST_REPORTS_DIR"); dir != nullptr && *dir != '\0') {
      static unsigned runs = 0;
      write_file(std::string(dir) + "/mem-object-" + std::to_string(getpid()) + "-" + std::to_string(runs++) +
                     ".json",
                 read_file(f.report));
    }
  }
  return r;
}

double metric(const json& phase, const char* name) {
  return phase["result"]["metrics"].at(name).get<double>();
}

// The bucket's objects below prefix: key (less the prefix) to size.
std::map<std::string, uint64_t> objects_below(const std::string& prefix) {
  std::map<std::string, uint64_t> out;
  for (const auto& [key, o] : mem::mem_bucket("bench")->list(prefix)) {
    out[key.substr(prefix.size())] = o.bytes->size();
  }
  return out;
}

TEST(MemObjectRun, TheObjectStorePhasesRunAndTheBucketHoldsWhatTheyCommitted) {
  mem::forget_mem_buckets();
  const MemRun r = run_on_mem(kPhases, "mem://bench/runs", true);
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const json& rep = r.report;
  EXPECT_EQ(rep["target"]["fs_type"], "mem");
  EXPECT_EQ(rep["target"]["access"], "object");
  const std::string run_folder = rep["target"]["run_folder"];
  ASSERT_TRUE(run_folder.starts_with("mem://bench/runs/iofab-")) << run_folder;
  const std::string run = run_folder.substr(std::string("mem://bench/").size()) + "/";
  ASSERT_EQ(rep["phases"].size(), 4u);
  for (const json& p : rep["phases"]) EXPECT_EQ(p["status"], "passed") << p.dump();
  const json& ingest = rep["phases"][0];
  const json& train = rep["phases"][1];
  const json& ckpt = rep["phases"][2];
  const json& restore = rep["phases"][3];

  // ingest: 2 workers x 3 objects of 1 MiB, each committed whole.
  EXPECT_EQ(metric(ingest, "write_bytes"), 6.0 * (1 << 20));
  const auto ingested = objects_below(run + "ingest/");
  EXPECT_EQ(ingested.size(), 6u);
  for (const auto& [key, size] : ingested) EXPECT_EQ(size, 1u << 20) << key;

  // train_read: every sample of both epochs read and verified, from a dataset generated as objects.
  EXPECT_EQ(metric(train, "samples"), 2.0 * 64);
  EXPECT_EQ(metric(train, "corrupt_samples"), 0);
  EXPECT_EQ(train["result"]["details"]["engine"], "mem");
  const json& ds = train["result"]["details"]["dataset"];
  uint64_t data_objects = 0, data_bytes = 0;
  for (const auto& [key, size] : objects_below(run + "train_read/")) {
    if (key == kManifestName) continue;
    EXPECT_TRUE(key.starts_with("data/")) << key;
    ++data_objects;
    data_bytes += size;
  }
  EXPECT_EQ(data_objects, ds["files"].get<uint64_t>());
  EXPECT_EQ(data_bytes, ds["bytes"].get<uint64_t>());
  EXPECT_EQ(objects_below(run + "train_read/").count(kManifestName), 1u);

  // checkpoint: two committed, the first rotated away; what is left is step 2, its manifest written last.
  EXPECT_EQ(metric(ckpt, "checkpoints"), 2);
  const double one_checkpoint = metric(ckpt, "checkpoint_bytes");
  EXPECT_GT(one_checkpoint, 0);
  uint64_t manifests = 0;
  for (const auto& [key, size] : objects_below(run + "checkpoint/")) {
    EXPECT_TRUE(key.starts_with("step-2/")) << key;
    manifests += key.ends_with("/manifest.json");
  }
  EXPECT_EQ(manifests, 1u);

  // restore: fan-out 2 reads the checkpoint twice, every byte verified against the manifest.
  EXPECT_EQ(metric(restore, "read_bytes"), 2 * one_checkpoint);
  EXPECT_EQ(metric(restore, "corrupt_shards"), 0);

  // --keep: the kept mark at the run prefix's root, and nothing outside the run's prefix.
  EXPECT_EQ(objects_below(run).count("iofab-kept"), 1u);
  EXPECT_EQ(objects_below("").size(), objects_below(run).size());
}

TEST(MemObjectRun, WithoutKeepTheRunnerRemovesTheRunsObjectsThroughTheKind) {
  mem::forget_mem_buckets();
  const MemRun r = run_on_mem(json::array({kPhases[0]}), "mem://bench/runs", false);
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_EQ(metric(r.report["phases"][0], "write_bytes"), 6.0 * (1 << 20));
  EXPECT_EQ(mem::mem_bucket("bench")->puts(), 6u) << "one put an object";
  EXPECT_TRUE(objects_below("").empty());
}

TEST(MemObjectRun, ABadMemTargetExits2NamingTheFormAndWritesNothing) {
  for (const char* bad : {"mem://", "mem://bench", "mem://bench/", "mem://Bench/runs", "mem://bench//runs",
                          "mem://bench/../runs", "mem://be_nch/runs"}) {
    mem::forget_mem_buckets();
    const MemRun r = run_on_mem(json::array({kPhases[0]}), bad, false);
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.err.find("target \"" + std::string(bad) + "\": expected mem://bucket/prefix"),
              std::string::npos)
        << r.err;
    EXPECT_TRUE(r.report.is_null()) << bad << ": no report";
    EXPECT_TRUE(objects_below("").empty()) << bad;
  }
}

TEST(MemObjectRun, WhatNoObjectStoreRunsIsRefusedAsOnS3) {
  mem::forget_mem_buckets();
  json phases = kPhases;
  phases[0]["engine"] = "psync";
  phases.push_back({{"kind", "prepare"}});
  const MemRun r = run_on_mem(phases, "mem://bench/runs", false);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(
      r.err.find("phases.ingest.engine: \"psync\" cannot reach an object store; expected \"auto\" or \"mem\" "
                 "on a mem:// target"),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("kind prepare does not run on an object store yet; on a mem:// target a suite holds"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(objects_below("").empty());
}

}  // namespace
}  // namespace iofab::testing
