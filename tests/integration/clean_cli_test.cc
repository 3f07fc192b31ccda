// `iofab clean --target DIR`: removes the run folders killed runs left, and
// nothing else: never a live run's folder, never through a symlink, never a
// name that is not a run folder's. `iofab list` names them.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "harness/fs/run_dir.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// A run folder in the layout a run leaves: its lock file and some data.
void make_run_folder(const std::string& path, bool with_lock) {
  fs::create_directories(path + "/ingest");
  write_file(path + "/ingest/w0-f0", std::string(100000, 'x'));
  if (with_lock) write_file(path + "/" + kRunLockName, "");
}

TEST(CleanCli, RemovesStaleRunFoldersAndNothingElse) {
  TempDir dir("/dev/shm");
  const std::string t = dir.path() + "/t";
  const std::string stale = t + "/iofab-20250101T000000Z-abcdef";
  const std::string old_style = t + "/iofab-20240101T000000Z-000001";  // from before run locks
  const std::string live = t + "/iofab-20250101T000001Z-123456";
  const std::string link = t + "/iofab-20250101T000002Z-aaaaaa";
  const std::string elsewhere = dir.path() + "/elsewhere";
  make_run_folder(stale, true);
  make_run_folder(old_style, false);
  make_run_folder(live, true);
  make_run_folder(elsewhere, true);
  fs::create_directory_symlink(elsewhere, link);
  make_run_folder(t + "/iofab-not-a-run", true);
  write_file(t + "/iofab-report-20250101T000000Z-abcdef.json", "{}");
  // The live run: a process holding the run lock shared, as every rank does.
  const int held = open((live + "/" + kRunLockName).c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(held, 0);
  ASSERT_EQ(flock(held, LOCK_SH | LOCK_NB), 0);

  // No terminal, no --yes: a list, nothing removed.
  CommandResult r = run_iofab({"clean", "--target", t});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("iofab-20250101T000000Z-abcdef"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("iofab-20240101T000000Z-000001"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("123456"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("aaaaaa"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pass --yes"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(stale));

  r = run_iofab({"list", "--target", t, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["target"]["stale_run_folders"],
            json::array({"iofab-20240101T000000Z-000001", "iofab-20250101T000000Z-abcdef"}));
  r = run_iofab({"list", "--target", t});
  EXPECT_NE(r.out.find("iofab clean --target " + t), std::string::npos) << r.out;

  r = run_iofab({"clean", "--target", t, "--yes"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_FALSE(fs::exists(old_style));
  EXPECT_TRUE(fs::exists(live + "/ingest/w0-f0")) << "a live run's folder is never removed";
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::exists(elsewhere + "/ingest/w0-f0")) << "a symlink is not followed";
  EXPECT_TRUE(fs::exists(t + "/iofab-not-a-run/ingest/w0-f0"));
  EXPECT_TRUE(fs::exists(t + "/iofab-report-20250101T000000Z-abcdef.json"));

  // Once its run is gone, the live folder is stale too.
  close(held);
  r = run_iofab({"clean", "--target", t, "--yes"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(live));
  r = run_iofab({"clean", "--target", t});
  EXPECT_NE(r.out.find("no stale run folders"), std::string::npos) << r.out;
  r = run_iofab({"list", "--target", t, "--json"});
  EXPECT_EQ(json::parse(r.out)["target"]["stale_run_folders"], json::array());
}

// The run folder's path once `iofab run` pid holds its lock file open; empty until then.
std::string locked_run_folder(pid_t pid) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::error_code lec;
    const fs::path target = fs::read_symlink(e.path(), lec);
    if (!lec && target.filename() == kRunLockName) return target.parent_path().string();
  }
  return "";
}

// The issue's case: a run killed with SIGKILL leaves its folder; clean leaves it while the run lives and
// removes it after.
TEST(CleanCli, AFolderLeftByASigkilledRunIsRemovedAndNotBefore) {
  TempDir dir("/dev/shm");
  const std::string t = dir.path() + "/t", suite = dir.path() + "/s.json", out = dir.path() + "/out.txt";
  write_file(suite, R"({"phases": [{"kind": "train_read", "layout": "files", "num_samples": 256,
      "sample_size": "4KiB", "epochs": 1000000, "compute_per_batch": "0s", "direct": false}]})");
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    execl(IOFAB_BINARY, IOFAB_BINARY, "run", suite.c_str(), "--target", t.c_str(), "--out",
          (dir.path() + "/r.json").c_str(), "--quiet", static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_GT(pid, 0);
  std::string folder;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while ((folder = locked_run_folder(pid)).empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling, not a wait for correctness
  }
  ASSERT_FALSE(folder.empty()) << read_file(out);

  CommandResult r = run_iofab({"clean", "--target", t, "--yes"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(folder)) << "clean removed a live run's folder: " << r.out;

  kill(pid, SIGKILL);
  int status = 0;
  ASSERT_TRUE(wait_for_exit(pid, std::chrono::seconds(60), &status));
  ASSERT_TRUE(fs::exists(folder)) << "SIGKILL leaves the folder: what clean is for";
  r = run_iofab({"clean", "--target", t, "--yes"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("removed " + folder), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(folder));
}

}  // namespace
}  // namespace iofab::testing
