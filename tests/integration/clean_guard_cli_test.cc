// What `iofab clean` must never remove: the folders a live run uses beside its target (train_read's
// cache_dir, a two-tier checkpoint's local_dir), the folders of runs made with --keep (unless asked),
// and anything on another filesystem mounted inside a run folder.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "harness/fs/run_dir.h"
#include "test_mounts.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

namespace fs = std::filesystem;

// The first folder named like a run folder directly under dir, once one holds a phase's folder; "" after
// the limit.
std::string wait_for_run_folder_with_phase(const std::string& dir, const std::string& phase, pid_t pid) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (is_run_dir_name(e.path().filename().string()) && fs::exists(e.path() / phase))
        return e.path().string();
    }
    if (waitpid(pid, nullptr, WNOHANG) == pid) return "";        // the run ended first
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling, not a wait for correctness
  }
  return "";
}

std::vector<std::string> run_folders_in(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (is_run_dir_name(e.path().filename().string())) out.push_back(e.path().string());
  }
  return out;
}

// Starts suite (a long phase named "p" that makes its folder under side), waits for that folder, runs
// `clean --yes` on side, and checks the folder outlives it; then stops the run and checks the folder went
// with it.
void expect_clean_leaves_the_live_side_folder(const std::string& suite_json, const std::string& side,
                                              const TempDir& dir) {
  write_file(dir.path() + "/s.json", suite_json);
  const std::string log = dir.path() + "/log.txt";
  const pid_t pid = start_iofab({"run", dir.path() + "/s.json", "--target", dir.path() + "/t", "--out",
                                 dir.path() + "/r.json", "--quiet"},
                                log);
  ASSERT_GT(pid, 0);
  const std::string folder = wait_for_run_folder_with_phase(side, "p", pid);
  ASSERT_FALSE(folder.empty()) << "no run folder with the phase's folder appeared under " << side << "\n"
                               << read_file(log);

  CommandResult r = run_iofab({"clean", "--target", side, "--yes"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(fs::exists(folder + "/p")) << "clean removed a live run's folder " << folder << ": " << r.out;
  EXPECT_NE(r.out.find("no stale run folders"), std::string::npos) << r.out;

  kill(pid, SIGINT);
  int status = 0;
  ASSERT_TRUE(wait_for_exit(pid, std::chrono::seconds(120), &status)) << read_file(log);
  ASSERT_TRUE(WIFEXITED(status)) << read_file(log);
  EXPECT_EQ(WEXITSTATUS(status), 130) << read_file(log);
  EXPECT_TRUE(run_folders_in(side).empty()) << "the run's folder under " << side << " outlived the run";
}

TEST(CleanCli, ALiveRunsCacheFolderOutlivesClean) {
  TempDir dir("/dev/shm");
  const std::string cache = dir.path() + "/cache";
  fs::create_directory(cache);
  expect_clean_leaves_the_live_side_folder(
      R"({"phases": [{"kind": "train_read", "name": "p", "layout": "files", "num_samples": 256,
          "sample_size": "4KiB", "epochs": 1000000, "compute_per_batch": "0s", "direct": false,
          "cache_dir": ")" +
          cache + R"("}]})",
      cache, dir);
}

TEST(CleanCli, ALiveRunsLocalTierFolderOutlivesClean) {
  TempDir dir("/dev/shm");
  const std::string local = dir.path() + "/local";
  fs::create_directory(local);
  expect_clean_leaves_the_live_side_folder(
      R"({"defaults": {"engine": "psync", "workers": 1, "block_size": "256KiB", "queue_depth": 4},
          "phases": [{"kind": "checkpoint", "name": "p", "checkpoint_size": "4MiB", "count": 100000, "gap": 0,
                      "tier": "two", "local_dir": ")" +
          local + R"("}]})",
      local, dir);
}

TEST(CleanCli, KeptRunFoldersStayUnlessIncludeKept) {
  TempDir dir("/dev/shm");
  const std::string t = dir.path() + "/t";
  fs::create_directory(t);
  write_file(dir.path() + "/s.json", R"({"phases": [{"kind": "ingest", "name": "i", "files_per_worker": 1,
      "file_size": "1MiB", "block_size": "256KiB", "workers": 1, "direct": false}]})");
  CommandResult r = run_iofab(
      {"run", dir.path() + "/s.json", "--target", t, "--out", dir.path() + "/r.json", "--quiet", "--keep"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> kept = run_folders_in(t);
  ASSERT_EQ(kept.size(), 1u);

  r = run_iofab({"clean", "--target", t, "--yes"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(kept[0] + "/i")) << "clean removed a --keep run's folder: " << r.out;
  EXPECT_NE(r.out.find("kept with --keep"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(fs::path(kept[0]).filename().string()), std::string::npos) << r.out;

  r = run_iofab({"clean", "--target", t, "--yes", "--include-kept"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(kept[0])) << r.out;
}

// A stale run folder with a user's folder bind-mounted inside it (and a tmpfs, another device): clean
// removes the run's own files, leaves every file of the mounts, and says which path it left.
TEST(CleanCli, NeverEntersAFilesystemMountedInsideARunFolder) {
  TempDir dir("/var/tmp");
  const std::string t = dir.path() + "/t";
  const std::string run = t + "/iofab-20250101T000000Z-abcdef";
  const std::string user = dir.path() + "/user";
  fs::create_directories(run + "/m");
  fs::create_directories(run + "/deep/tmp");
  fs::create_directories(user);
  write_file(run + "/own", "the run's file");
  write_file(user + "/precious", "a user's file");
  BindMount bind(user, run + "/m");
  if (!bind.mounted()) GTEST_SKIP() << bind.why();
  ASSERT_EQ(mount("tmpfs", (run + "/deep/tmp").c_str(), "tmpfs", 0, "size=1m"), 0) << std::strerror(errno);
  struct Unmount {
    std::string path;
    ~Unmount() { umount2(path.c_str(), MNT_DETACH); }
  } tmpfs{run + "/deep/tmp"};
  write_file(run + "/deep/tmp/also", "on a tmpfs");

  CommandResult r = run_iofab({"clean", "--target", t, "--yes"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_TRUE(fs::exists(user + "/precious")) << "clean removed files of a bind mount: " << r.err;
  EXPECT_TRUE(fs::exists(run + "/deep/tmp/also")) << "clean removed files of another filesystem: " << r.err;
  EXPECT_FALSE(fs::exists(run + "/own")) << r.err;
  // The first refusal is the message: either mount, by its path in the run folder.
  EXPECT_TRUE(r.err.find("abcdef/m is a mount point") != std::string::npos ||
              r.err.find("abcdef/deep/tmp is a mount point") != std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace iofab::testing
