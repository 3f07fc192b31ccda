// Ctrl-C and SIGTERM at several points of every storage phase: while it writes,
// between checkpoints, while it generates a dataset, while it reads. Each must
// end the run promptly with exit 130, an `interrupted` report that is valid
// JSON, and no file left on the target. The point is recognised from the
// outside, as a user sees it: which files the process holds open, and how.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "driver/runner/signals.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct OpenFile {
  std::string path;
  bool writable = false;
};

// The regular files pid holds open, with whether each was opened for writing.
std::vector<OpenFile> open_files(pid_t pid) {
  std::vector<OpenFile> out;
  const std::string base = "/proc/" + std::to_string(pid);
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(base + "/fd", ec)) {
    std::error_code lec;
    const auto target = std::filesystem::read_symlink(e.path(), lec);
    if (lec || target.string().empty() || target.string()[0] != '/') continue;
    const std::string info = read_file(base + "/fdinfo/" + e.path().filename().string());
    const auto at = info.find("flags:");
    if (at == std::string::npos) continue;
    const long flags = std::strtol(info.c_str() + at + 6, nullptr, 8);
    out.push_back({target.string(), (flags & O_ACCMODE) != O_RDONLY});
  }
  return out;
}

bool any_open(pid_t pid, const std::string& under, bool writable) {
  for (const auto& f : open_files(pid)) {
    if (f.writable == writable && f.path.find(under) != std::string::npos) return true;
  }
  return false;
}

// True when a file whose name ends with `suffix` exists anywhere below dir.
bool file_below(const std::string& dir, const std::string& suffix) {
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename().string().ends_with(suffix)) return true;
  }
  return false;
}

// Everything left under target that is not inside an iofab-* run folder.
std::vector<std::string> outside_run_folders(const std::string& target) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(target, ec)) {
    if (e.path().filename().string().rfind("iofab-", 0) != 0) out.push_back(e.path().string());
  }
  return out;
}

struct Point {
  std::string name;        // the test's name
  std::string suite;       // a suite long enough to be caught at the point
  int phase = 0;           // index of the phase the signal lands in
  // True once the run is at the point; gets the pid and the target folder.
  std::function<bool(pid_t, const std::string&)> reached;
};

void PrintTo(const Point& p, std::ostream* os) { *os << p.name; }

// One checkpoint phase of `params` at full size, on the disk (O_DIRECT).
std::string checkpoint_phase(const std::string& params, int count, const std::string& gap) {
  return R"({"kind": "checkpoint", "name": "checkpoint", "params": )" + params + R"(, "count": )" +
         std::to_string(count) + R"(, "gap": ")" + gap + R"(", "block_size": "1MiB", "queue_depth": 4})";
}

std::vector<Point> points() {
  const std::string defaults = R"("defaults": {"engine": "auto", "direct": true, "workers": 2})";
  auto suite = [&](const std::string& phases) { return "{" + defaults + R"(, "phases": [)" + phases + "]}"; };
  return {
      {"IngestWhileWriting",
       suite(R"({"kind": "ingest", "name": "ingest", "file_size": "8GiB", "block_size": "64KiB", "queue_depth": 1})"),
       0, [](pid_t pid, const std::string&) { return any_open(pid, "/ingest/", true); }},
      {"CheckpointWhileWriting", suite(checkpoint_phase("2e8", 2, "1s")), 0,
       [](pid_t pid, const std::string&) { return any_open(pid, "/checkpoint/", true); }},
      // After the first checkpoint is committed, in the emulated compute before the next one.
      {"CheckpointBetweenCheckpoints", suite(checkpoint_phase("1e6", 3, "60s")), 0,
       [](pid_t pid, const std::string& target) {
         return file_below(target, "manifest.json") && !any_open(pid, "/checkpoint/", true);
       }},
      // Restore reads the committed checkpoint back 8 times.
      {"RestoreWhileReading",
       suite(checkpoint_phase("1e8", 1, "0s") + R"(, {"kind": "restore", "name": "restore", "fanout": 8})"), 1,
       [](pid_t pid, const std::string& target) {
         return file_below(target, "manifest.json") && any_open(pid, "/checkpoint/", false);
       }},
      {"TrainReadWhileGenerating",
       suite(R"({"kind": "train_read", "name": "train_read", "layout": "shards", "num_samples": 200000,
                 "sample_size": "16KiB", "samples_per_shard": 10000, "epochs": 1})"),
       0, [](pid_t pid, const std::string&) { return any_open(pid, "/train_read/data/", true); }},
      {"TrainReadWhileReading",
       suite(R"({"kind": "train_read", "name": "train_read", "layout": "files", "num_samples": 2048,
                 "sample_size": "16KiB", "epochs": 100000, "compute_per_batch": "0s"})"),
       0,
       [](pid_t pid, const std::string& target) {
         return file_below(target, "iofab-dataset.json") && any_open(pid, "/train_read/data/", false);
       }},
  };
}

class InterruptAt : public ::testing::TestWithParam<std::tuple<Point, int>> {};

// Starts `iofab run`, output to a file; returns its pid.
pid_t start_run(const std::string& suite, const std::string& target, const std::string& report,
                const std::string& out) {
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    execl(IOFAB_BINARY, IOFAB_BINARY, "run", suite.c_str(), "--target", target.c_str(), "--out", report.c_str(),
          "--quiet", "--no-preflight", static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// Waits for pid to exit within limit; kills it and fails the test otherwise.
int wait_exit(pid_t pid, std::chrono::seconds limit, const std::string& out) {
  int status = 0;
  if (!wait_for_exit(pid, limit, &status)) {
    ADD_FAILURE() << "still running " << limit.count() << " s after the signal: " << read_file(out);
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_P(InterruptAt, EndsPromptlyRemovesFilesAndReportsInterrupted) {
  const auto& [point, sig] = GetParam();
  TempDir dir("/var/tmp");
  const std::string suite = dir.path() + "/s.json", target = dir.path() + "/t", report = dir.path() + "/r.json",
                    out = dir.path() + "/out.txt";
  write_file(suite, point.suite);
  const pid_t pid = start_run(suite, target, report, out);
  ASSERT_GT(pid, 0);
  bool reached = false;
  for (const auto until = Clock::now() + std::chrono::seconds(60); !reached && Clock::now() < until;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    reached = point.reached(pid, target);
    if (waitpid(pid, nullptr, WNOHANG) == pid) break;
  }
  if (!reached) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    FAIL() << "the run never reached the point: " << read_file(out);
  }
  ASSERT_EQ(kill(pid, sig), 0);
  EXPECT_EQ(wait_exit(pid, std::chrono::seconds(30), out), 130) << read_file(out);
  EXPECT_NE(read_file(out).find("stopping, cleaning up"), std::string::npos) << read_file(out);
  json j = json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "no valid report: " << read_file(out);
  EXPECT_EQ(j["verdict"]["status"], "interrupted");
  ASSERT_GT(j["phases"].size(), static_cast<size_t>(point.phase));
  EXPECT_EQ(j["phases"][point.phase]["status"], "interrupted") << j["phases"][point.phase]["reason"];
  for (int k = 0; k < point.phase; ++k) EXPECT_EQ(j["phases"][k]["status"], "passed") << k;
  std::error_code ec;
  EXPECT_TRUE(std::filesystem::is_empty(target, ec)) << "files left after signal " << sig << ": "
                                                     << list_files(target).size();
}

INSTANTIATE_TEST_SUITE_P(EveryPhase, InterruptAt,
                         ::testing::Combine(::testing::ValuesIn(points()), ::testing::Values(SIGINT, SIGTERM)),
                         [](const auto& p) {
                           return std::get<0>(p.param).name +
                                  (std::get<1>(p.param) == SIGINT ? "_Sigint" : "_Sigterm");
                         });

// Ctrl-C while train_read reads its cache tier (a cache file held open for reading): the cache's folder in
// cache_dir goes too, not only the run folder.
TEST(InterruptTrainReadCache, SigintWhileReadingTheCacheRemovesIt) {
  TempDir dir("/var/tmp");
  TempDir cache("/dev/shm");
  const std::string suite = dir.path() + "/s.json", target = dir.path() + "/t",
                    report = dir.path() + "/r.json", out = dir.path() + "/out.txt";
  write_file(suite, R"({"phases": [{"kind": "train_read", "name": "train_read", "layout": "files",
      "num_samples": 2048, "sample_size": "16KiB", "epochs": 100000, "cache_dir": ")" +
                        cache.path() + R"(", "cache_source_epoch": false}]})");
  const pid_t pid = start_run(suite, target, report, out);
  ASSERT_GT(pid, 0);
  bool reading_cache = false;
  for (const auto until = Clock::now() + std::chrono::seconds(60); !reading_cache && Clock::now() < until;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    reading_cache = any_open(pid, cache.path() + "/iofab-", false);
    if (waitpid(pid, nullptr, WNOHANG) == pid) break;
  }
  if (!reading_cache) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    FAIL() << "the run never read its cache: " << read_file(out);
  }
  ASSERT_EQ(kill(pid, SIGINT), 0);
  EXPECT_EQ(wait_exit(pid, std::chrono::seconds(30), out), 130) << read_file(out);
  json j = json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "no valid report: " << read_file(out);
  EXPECT_EQ(j["phases"][0]["status"], "interrupted") << j["phases"][0]["reason"];
  std::error_code ec;
  EXPECT_TRUE(std::filesystem::is_empty(target, ec)) << list_files(target).size();
  EXPECT_TRUE(std::filesystem::is_empty(cache.path(), ec))
      << "left in cache_dir: " << list_files(cache.path()).size();
}

// A second Ctrl-C while cleaning up exits at once; whatever is left lies inside the run folder.
TEST(InterruptTwice, SecondSignalExitsAtOnceLeavingNothingOutsideTheRunFolder) {
  TempDir dir("/var/tmp");
  const std::string suite = dir.path() + "/s.json", target = dir.path() + "/t", report = dir.path() + "/r.json",
                    out = dir.path() + "/out.txt";
  write_file(suite, R"({"defaults": {"direct": true}, "phases": [{"kind": "ingest", "workers": 2,
      "file_size": "8GiB", "block_size": "64KiB", "queue_depth": 1}]})");
  const pid_t pid = start_run(suite, target, report, out);
  ASSERT_GT(pid, 0);
  bool writing = false;
  for (int i = 0; i < 2000 && !writing; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    writing = any_open(pid, "/ingest/", true);
  }
  ASSERT_TRUE(writing) << read_file(out);
  ASSERT_EQ(kill(pid, SIGINT), 0);
  // Two signals sent back to back may merge into one: send the second once the first was seen.
  for (int i = 0; i < 400 && read_file(out).find("stopping") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // A second signal within kRepeatSignalWindowNs of the first is the same request (GNU timeout sends two):
  // a second Ctrl-C by hand comes later.
  std::this_thread::sleep_for(std::chrono::nanoseconds(kRepeatSignalWindowNs) +
                              std::chrono::milliseconds(100));
  ASSERT_EQ(kill(pid, SIGINT), 0);
  EXPECT_EQ(wait_exit(pid, std::chrono::seconds(5), out), 130) << read_file(out);
  EXPECT_TRUE(outside_run_folders(target).empty());
  // Nothing of this run is left anywhere but its run folder (the test's folder holds only its own files).
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name == "s.json" || name == "t" || name == "out.txt" || name == "r.json") << name;
  }
}

}  // namespace
}  // namespace iofab::testing
