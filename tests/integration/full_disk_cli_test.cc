// Storage that fills or refuses writes under a run: the report's own filesystem full (the report goes
// elsewhere and the console says where), a model_load that fails for want of room (its files go at
// once, so the next phase has the room), and a complete dataset on a read-only mount (reused).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_mounts.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Writes into dir until its filesystem says it is full.
void fill(const std::string& dir) {
  const int fd = open((dir + "/fill").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  const std::string block(1 << 16, 'x');
  while (write(fd, block.data(), block.size()) > 0) {
  }
  close(fd);
}

// $TMPDIR for the iofab processes this test starts, restored after.
struct TmpdirFor {
  explicit TmpdirFor(const std::string& dir) { setenv("TMPDIR", dir.c_str(), 1); }
  ~TmpdirFor() { unsetenv("TMPDIR"); }
};

TEST(FullDiskCli, AReportItsFilesystemCannotTakeGoesToTmpdirAndTheConsoleSaysWhere) {
  SmallTmpfs full("1m");
  if (!full.mounted()) GTEST_SKIP() << "mounting a tmpfs is not permitted here";
  TempDir dir("/dev/shm");
  const std::string tmp = dir.path() + "/tmp";
  fs::create_directory(tmp);
  write_file(dir.path() + "/s.json", R"({"phases": [{"kind": "ingest", "name": "i", "files_per_worker": 1,
      "file_size": "1MiB", "block_size": "256KiB", "workers": 1, "direct": false}]})");
  fill(full.path());
  TmpdirFor env(tmp);
  CommandResult r = run_iofab(
      {"run", dir.path() + "/s.json", "--target", dir.path(), "--out", full.path() + "/r.json", "--quiet"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  std::vector<std::string> copies;
  for (const auto& e : fs::directory_iterator(tmp)) copies.push_back(e.path().string());
  ASSERT_EQ(copies.size(), 1u) << "no copy of the report in $TMPDIR: " << r.err;
  EXPECT_NE(r.err.find("written to " + copies[0] + " instead"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("report: " + copies[0]), std::string::npos) << r.out;
  const json j = json::parse(read_file(copies[0]));
  EXPECT_EQ(j["verdict"]["status"], "passed");
  EXPECT_EQ(j["phases"][0]["status"], "passed");
}

// A target with room for the ingest after it but not for the model's weights: the failed model_load
// leaves nothing, and the ingest runs.
TEST(FullDiskCli, AModelLoadThatRunsOutOfRoomRemovesItsFilesBeforeTheNextPhase) {
  SmallTmpfs target("48m");
  if (!target.mounted()) GTEST_SKIP() << "mounting a tmpfs is not permitted here";
  TempDir dir("/dev/shm");
  // Llama 3 8B at scale 200: about 80 MB of weights; the ingest: 32 MiB.
  write_file(dir.path() + "/s.json", R"({"phases": [
      {"kind": "model_load", "name": "m", "scale": 200, "engine": "psync"},
      {"kind": "ingest", "name": "i", "files_per_worker": 1, "file_size": "32MiB", "block_size": "1MiB",
       "workers": 1, "direct": false}]})");
  CommandResult r = run_iofab({"run", dir.path() + "/s.json", "--target", target.path(), "--out",
                               dir.path() + "/r.json", "--quiet", "--no-preflight"});
  const json j = json::parse(read_file(dir.path() + "/r.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.err;
  EXPECT_NE(j["phases"][0]["status"], "passed") << j["phases"][0].dump();
  EXPECT_NE(j["phases"][0].dump().find("No space left on device"), std::string::npos)
      << j["phases"][0].dump();
  EXPECT_EQ(j["phases"][1]["status"], "passed") << j["phases"][1].dump();
}

TEST(ReadOnlyDatasetCli, ACompleteDatasetOnAReadOnlyMountIsReused) {
  TempDir dir("/var/tmp");
  const std::string data = dir.path() + "/data", ro = dir.path() + "/ro", empty = dir.path() + "/empty",
                    ro_empty = dir.path() + "/ro-empty";
  for (const auto& d : {data, ro, empty, ro_empty}) fs::create_directory(d);
  const std::string suite = dir.path() + "/s.json";
  write_file(suite, R"({"phases": [{"kind": "train_read", "name": "tr", "layout": "files", "num_samples": 64,
      "sample_size": "4KiB", "batch_size": 16, "epochs": 1, "compute_per_batch": "0s", "direct": false}]})");
  auto run = [&](const std::string& dataset_dir) {
    return run_iofab({"run", suite, "--target", dir.path(), "--out", dir.path() + "/r.json", "--quiet",
                      "--set", "phases.tr.dataset_dir=" + dataset_dir});
  };
  CommandResult r = run(data);
  ASSERT_EQ(r.exit_code, 0) << r.err;

  BindMount mounted(data, ro, true);
  if (!mounted.mounted()) GTEST_SKIP() << mounted.why();
  r = run(ro);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(read_file(dir.path() + "/r.json"));
  EXPECT_EQ(j["phases"][0]["result"]["details"]["dataset"]["origin"], "reused") << r.err;

  // Nothing to reuse there, and nothing can be made: the phase is refused (exit 3, as for a dataset_dir in
  // use), naming the folder and why; nothing is written.
  BindMount mounted_empty(empty, ro_empty, true);
  ASSERT_TRUE(mounted_empty.mounted()) << mounted_empty.why();
  r = run(ro_empty);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const json refused = json::parse(read_file(dir.path() + "/r.json"));
  EXPECT_NE(refused["phases"][0]["reason"].get<std::string>().find("dataset_dir " + ro_empty +
                                                                   " is on a read-only filesystem"),
            std::string::npos)
      << refused["phases"][0].dump();
  EXPECT_TRUE(fs::is_empty(empty));
}

}  // namespace
}  // namespace iofab::testing
