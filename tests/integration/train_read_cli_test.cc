// train_read end to end through the iofab binary: bad params, cold and warm
// epochs on the disk, an AU check, a kept dataset reused, O_DIRECT on tmpfs.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

json run_suite(const std::string& dir, const std::string& suite_text, std::vector<std::string> extra,
               CommandResult* out) {
  const std::string suite = dir + "/s.json";
  const std::string report = dir + "/r.json";
  write_file(suite, suite_text);
  std::vector<std::string> args{"run", suite, "--target", dir + "/t", "--out", report, "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  *out = run_iofab(args);
  return json::parse(read_file(report), nullptr, false);
}

TEST(TrainReadCli, BadParamsExitTwoNamingThePath) {
  TempDir dir("/dev/shm");
  struct Case {
    std::string phase;
    std::string says;
  };
  for (const Case& c : {
           Case{R"("num_samples": 0)", "phases[0].num_samples: expected a count in [1, 1000000000], got 0"},
           Case{R"("num_samples": 10, "batch_size": 11)",
                "phases[0].batch_size: must be <= num_samples (10)"},
           Case{R"("sample_size": 0)", "phases[0].sample_size: expected a size from 1 to"},
           Case{R"("sample_size_distribution": "normal")", "phases[0].sample_size_stdev: must be > 0"},
           Case{R"("layout": "tfrecord")", "phases[0].layout: expected one of \"files\" \"shards\""},
           Case{R"("epochs": 1, "read_thread": 2)", "phases[0].read_thread: unknown parameter"},
       }) {
    write_file(dir.path() + "/s.json", R"({"phases": [{"kind": "train_read", )" + c.phase + "}]}");
    CommandResult r = run_iofab({"run", dir.path() + "/s.json", "--target", dir.path() + "/t"});
    EXPECT_EQ(r.exit_code, 2) << c.phase << "\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.phase << "\n" << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/t"));
}

TEST(TrainReadCli, ColdAndWarmEpochsShowApartOnTheDisk) {
  TempDir dir("/var/tmp");
  CommandResult r;
  // Buffered reads; the cache is dropped before epoch 0 only, so epoch 1 reads memory.
  json j =
      run_suite(dir.path(), R"({"phases": [{"kind": "train_read", "num_samples": 2048, "sample_size": "16KiB",
      "batch_size": 32, "epochs": 2, "direct": false, "drop_cache": "first_epoch", "read_threads": 2}]})",
                {}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json& d = j["phases"][0]["result"]["details"];
  const json& e0 = d["epochs"][0];
  const json& e1 = d["epochs"][1];
  if (!e0["cache_drop_error"].get<std::string>().empty()) GTEST_SKIP() << e0["cache_drop_error"];
  if (e0["cache_resident_fraction"].get<double>() > 0.05) {
    GTEST_SKIP() << "the kernel kept the pages after a drop";
  }
  EXPECT_TRUE(e0["cache_dropped"].get<bool>());
  EXPECT_FALSE(e1["cache_dropped"].get<bool>());
  EXPECT_GE(e1["cache_resident_fraction"].get<double>(), 0.95) << "epoch 0 read everything into the cache";
  const double dataset = d["dataset"]["bytes"].get<double>();
  if (!e0["device_read_bytes"].is_null()) {
    EXPECT_GE(e0["device_read_bytes"].get<double>(), 0.9 * dataset) << "a cold epoch reads the device";
    EXPECT_LE(e1["device_read_bytes"].get<double>(), 0.1 * dataset) << "a warm epoch reads memory";
  }
  bool warned = false;
  for (const auto& w : j["phases"][0]["warnings"]) {
    warned = warned || w.get<std::string>().find("figures may come from the page cache") != std::string::npos;
  }
  EXPECT_TRUE(warned) << "a dataset smaller than memory, read buffered, is flagged";
}

TEST(TrainReadCli, AuCheckPassesWhenComputeDominatesAndFailsWhenNothingComputes) {
  TempDir dir("/dev/shm");
  CommandResult r;
  const std::string phase = R"({"phases": [{"kind": "train_read", "num_samples": 512, "sample_size": "8KiB",
      "batch_size": 32, "epochs": 2, "direct": false, "compute_per_batch": "%C",
      "checks": [{"metric": "au", "op": ">=", "value": 0.9}]}]})";
  std::string busy = phase;
  busy.replace(busy.find("%C"), 2, "10ms");
  json j = run_suite(dir.path(), busy, {}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(j["phases"][0]["checks"][0]["passed"], true);
  EXPECT_GE(j["phases"][0]["checks"][0]["value"].get<double>(), 0.9);

  std::string idle = phase;
  idle.replace(idle.find("%C"), 2, "0s");
  j = run_suite(dir.path(), idle, {}, &r);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(j["phases"][0]["checks"][0]["value"].get<double>(), 0.0);
}

TEST(TrainReadCli, KeptDatasetIsReusedAsDatasetDir) {
  TempDir dir("/dev/shm");
  CommandResult r;
  const std::string suite = R"({"phases": [{"kind": "train_read", "layout": "files", "num_samples": 300,
      "sample_size": "4KiB", "batch_size": 16, "epochs": 1, "files_per_dir": 50}]})";
  json j = run_suite(dir.path(), suite, {"--keep"}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string kept = j["phases"][0]["result"]["details"]["dataset"]["path"].get<std::string>();
  EXPECT_TRUE(std::filesystem::exists(kept + "/iofab-dataset.json"));
  EXPECT_EQ(list_files(kept + "/data").size(), 300u);

  j = run_suite(dir.path(), suite, {"--set", "phases.train_read.dataset_dir=" + kept}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(j["phases"][0]["result"]["details"]["dataset"]["origin"], "reused");
  EXPECT_EQ(j["phases"][0]["result"]["metrics"]["generate_seconds"], 0);
  EXPECT_EQ(list_files(kept + "/data").size(), 300u) << "a dataset_dir is never removed";
}

// docs/faults.md: regenerating a dataset_dir removes only the files its manifest lists.
TEST(TrainReadCli, RegeneratingADatasetDirKeepsTheUsersFiles) {
  TempDir dir("/dev/shm");
  const std::string ds = dir.path() + "/ds";
  CommandResult r;
  const std::string suite = R"({"phases": [{"kind": "train_read", "layout": "files", "num_samples": %N,
      "sample_size": "4KiB", "batch_size": 16, "epochs": 1, "files_per_dir": 50, "dataset_dir": "%D"}]})";
  auto with = [&](const std::string& n) {
    std::string t = suite;
    t.replace(t.find("%N"), 2, n);
    t.replace(t.find("%D"), 2, ds);
    return t;
  };
  run_suite(dir.path(), with("300"), {}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  write_file(ds + "/data/NOTES.txt", "the user's");
  json j = run_suite(dir.path(), with("120"), {}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(j["phases"][0]["result"]["details"]["dataset"]["origin"], "generated");
  EXPECT_EQ(read_file(ds + "/data/NOTES.txt"), "the user's");
  EXPECT_EQ(list_files(ds + "/data").size(), 121u) << "the 120 new files and the user's";
  EXPECT_NE(j["phases"][0]["warnings"].dump().find("NOTES.txt"), std::string::npos) << j["phases"][0].dump();
}

// docs/faults.md: a complete manifest edited to claim far more than its folder holds (num_samples 1e9 over
// 300 files) is refused at once, naming the manifest and the field, and nothing is removed on its word.
// Before, regeneration built the claimed layout (3.9 GB) and tried each claimed file (about 3 hours).
TEST(TrainReadCli, AManifestClaimingMoreThanItsFolderHoldsIsRefusedAtOnce) {
  TempDir dir("/dev/shm");
  const std::string ds = dir.path() + "/ds";
  const std::string suite = R"({"phases": [{"kind": "train_read", "layout": "files", "num_samples": %N,
      "sample_size": "4KiB", "batch_size": 16, "epochs": 1, "files_per_dir": 50, "dataset_dir": "%D"}]})";
  auto with = [&](const std::string& n) {
    std::string t = suite;
    t.replace(t.find("%N"), 2, n);
    t.replace(t.find("%D"), 2, ds);
    return t;
  };
  CommandResult r;
  run_suite(dir.path(), with("300"), {}, &r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json manifest = json::parse(read_file(ds + "/iofab-dataset.json"));
  ASSERT_EQ(manifest["complete"], true);
  manifest["spec"]["num_samples"] = 1000000000;
  write_file(ds + "/iofab-dataset.json", manifest.dump());
  write_file(dir.path() + "/s.json", with("120"));
  // Bounded: the old code ran for hours here.
  r = run_command({"/usr/bin/timeout", "-s", "KILL", "60", IOFAB_BINARY, "run", dir.path() + "/s.json",
                   "--target", dir.path() + "/t", "--out", dir.path() + "/r.json", "--quiet"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const json j = json::parse(read_file(dir.path() + "/r.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.err;
  const std::string reason = j["phases"][0]["reason"].get<std::string>();
  EXPECT_NE(reason.find("iofab-dataset.json whose spec.num_samples (1000000000) names 1000000000 sample "
                        "files, but its data/ holds 300 files"),
            std::string::npos)
      << reason;
  EXPECT_EQ(list_files(ds + "/data").size(), 300u) << "nothing is removed on a manifest's false word";
}

// docs/faults.md: two runs cannot share a dataset_dir at once; the second is refused while the first holds
// the lock (held here by the test, as the first run would), and runs once it is free.
TEST(TrainReadCli, ADatasetDirInUseIsRefusedUntilItsLockIsFree) {
  TempDir dir("/dev/shm");
  const std::string ds = dir.path() + "/ds";
  std::filesystem::create_directory(ds);
  const int held = open((ds + "/iofab-dataset.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(held, 0);
  ASSERT_EQ(flock(held, LOCK_EX | LOCK_NB), 0);
  const std::string suite = R"({"phases": [{"kind": "train_read", "num_samples": 64, "sample_size": "4KiB",
      "batch_size": 8, "epochs": 1, "dataset_dir": ")" +
                            ds + R"("}]})";
  CommandResult r;
  json j = run_suite(dir.path(), suite, {}, &r);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(j["phases"][0]["status"], "error");
  EXPECT_NE(j["phases"][0]["reason"].get<std::string>().find("is in use by another iofab run"),
            std::string::npos)
      << j["phases"][0]["reason"];
  EXPECT_FALSE(std::filesystem::exists(ds + "/iofab-dataset.json")) << "nothing was written";
  close(held);
  j = run_suite(dir.path(), suite, {}, &r);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(j["phases"][0]["result"]["details"]["dataset"]["origin"], "generated");
}

// tmpfs takes O_DIRECT from Linux 6.6 on; before, the phase must say why it cannot.
TEST(TrainReadCli, DirectOnTmpfsWorksOrSaysWhy) {
  TempDir dir("/dev/shm");
  const std::string probe = dir.path() + "/probe";
  const int fd = open(probe.c_str(), O_CREAT | O_RDWR | O_DIRECT | O_CLOEXEC, 0644);
  const bool tmpfs_direct = fd >= 0;
  if (fd >= 0) close(fd);
  std::filesystem::remove(probe);
  CommandResult r;
  json j =
      run_suite(dir.path(), R"({"phases": [{"kind": "train_read", "num_samples": 64, "sample_size": "5000B",
      "batch_size": 8, "epochs": 1, "direct": true}]})",
                {}, &r);
  if (tmpfs_direct) {
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    // Aligned spans: 5000-byte samples packed back to back cost whole 4 KiB blocks each.
    const json& d = j["phases"][0]["result"]["details"];
    EXPECT_GT(d["io_bytes"].get<double>(), j["phases"][0]["result"]["metrics"]["read_bytes"].get<double>());
    EXPECT_TRUE(d["every_sample_once"].get<bool>());
    EXPECT_EQ(j["phases"][0]["result"]["metrics"]["corrupt_samples"], 0);
  } else {
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_EQ(j["phases"][0]["status"], "error");
    EXPECT_NE(j["phases"][0]["reason"].get<std::string>().find("does not support O_DIRECT"),
              std::string::npos)
        << j["phases"][0]["reason"];
  }
}

}  // namespace
}  // namespace iofab::testing
