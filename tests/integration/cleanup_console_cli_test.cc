// A cleanup that fails is said on the console, not only in the report's warnings (issue 28, item 12):
// what was left and the command that removes the rest. Here a filesystem is mounted inside the run
// folder while the run goes (as a FUSE mount left by a dead daemon would be), so the folder cannot go.
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

// The run folder under target, once there is one (waits at most 60 s); "" when none came.
std::string wait_for_run_folder(const std::string& target) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < until) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(target, ec)) {
      if (e.is_directory() && e.path().filename().string().starts_with("iofab-")) return e.path().string();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return "";
}

TEST(CleanupConsole, AFolderThatCannotBeRemovedIsSaidOnTheConsoleWithTheCommandThatRemovesIt) {
  TempDir dir("/var/tmp");
  const std::string target = dir.path() + "/t";
  std::filesystem::create_directories(target);
  write_file(dir.path() + "/s.json", R"({"phases": [{"kind": "checkpoint", "checkpoint_size": "4MiB",
      "count": 2, "gap": "3s", "workers": 1, "block_size": "1MiB", "engine": "psync"}]})");
  CommandResult r;
  std::thread run([&] {
    r = run_iofab(
        {"run", dir.path() + "/s.json", "--target", target, "--out", dir.path() + "/r.json", "--quiet"});
  });
  const std::string folder = wait_for_run_folder(target);
  bool mounted = false;
  if (!folder.empty()) {
    std::filesystem::create_directory(folder + "/m");
    mounted = mount("tmpfs", (folder + "/m").c_str(), "tmpfs", 0, "size=1m") == 0;
  }
  run.join();
  if (mounted) umount2((folder + "/m").c_str(), MNT_DETACH);
  ASSERT_FALSE(folder.empty()) << r.err;
  if (!mounted) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  EXPECT_TRUE(contains(r.err, "iofab: cleanup failed: ")) << r.err;
  EXPECT_TRUE(contains(
      r.err, "iofab: left behind: " + folder + "; remove it with: iofab clean --yes --target " + target))
      << r.err;
  const json j = json::parse(read_file(dir.path() + "/r.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.err;
  EXPECT_EQ(j["target"]["left_behind"]["location"], folder);
  EXPECT_EQ(j["target"]["left_behind"]["clean_command"], "iofab clean --yes --target " + target);
}

TEST(CleanupConsole, ACleanRunSaysNothingOfCleanup) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/s.json",
             R"({"phases": [{"kind": "ingest", "file_size": "1MiB", "workers": 1}]})");
  CommandResult r = run_iofab(
      {"run", dir.path() + "/s.json", "--target", dir.path(), "--out", dir.path() + "/r.json", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "cleanup")) << r.err;
  const json j = json::parse(read_file(dir.path() + "/r.json"));
  EXPECT_FALSE(j["target"].contains("left_behind"));
}

}  // namespace
}  // namespace iofab::testing
