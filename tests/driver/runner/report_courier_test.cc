// The report courier: what it writes when its rank goes, and what it leaves.
#include "driver/runner/report_courier.h"

#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>

#include "harness/fs/run_dir.h"
#include "harness/fs/stale_run_dirs.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

constexpr const char* kRunFolder = "iofab-20261123T181500Z-0a1b2c";

std::string report_text(const std::string& run_id, int mark) {
  return R"({"run": {"id": ")" + run_id + R"("}, "mark": )" + std::to_string(mark) + "}\n";
}

// Ends the rank's side as its death would (the socket closes) and waits for the courier to finish.
void rank_goes(std::unique_ptr<ReportCourier>* courier) {
  const pid_t pid = (*courier)->pid();
  courier->reset();
  int status = 0;
  // The destructor may have reaped it already; wait_for_exit then reports it gone.
  ASSERT_TRUE(wait_for_exit(pid, std::chrono::seconds(60), &status)) << "the courier did not finish";
}

TEST(ReportCourier, WritesTheFallbackWhenTheRankGoesBeforeItsReport) {
  TempDir dir;
  const std::string path = dir.path() + "/r.json";
  std::unique_ptr<ReportCourier> courier;
  ASSERT_TRUE(ReportCourier::start(&courier).ok());
  ASSERT_TRUE(courier->leave_fallback(path, report_text("run-a", 1)).ok());
  ASSERT_TRUE(courier->leave_fallback(path, report_text("run-a", 2)).ok());  // the newest stands
  EXPECT_FALSE(std::filesystem::exists(path)) << "a fallback is written only when the rank goes";
  rank_goes(&courier);
  EXPECT_EQ(read_file(path), report_text("run-a", 2));
}

TEST(ReportCourier, ADeliveredReportSupersedesTheFallback) {
  TempDir dir;
  const std::string path = dir.path() + "/r.json";
  std::unique_ptr<ReportCourier> courier;
  ASSERT_TRUE(ReportCourier::start(&courier).ok());
  ASSERT_TRUE(courier->leave_fallback(path, report_text("run-a", 1)).ok());
  ASSERT_TRUE(courier->deliver(path, report_text("run-a", 7)).ok());
  EXPECT_EQ(read_file(path), report_text("run-a", 7)) << "deliver answers once the file is in place";
  rank_goes(&courier);
  EXPECT_EQ(read_file(path), report_text("run-a", 7));
}

TEST(ReportCourier, TheFallbackKeepsTheSameRunsReportAndReplacesAnEarlierRuns) {
  TempDir dir;
  const std::string path = dir.path() + "/r.json";
  // Another rank took over as the writer and wrote the real report of this run first.
  write_file(path, report_text("run-a", 9));
  std::unique_ptr<ReportCourier> courier;
  ASSERT_TRUE(ReportCourier::start(&courier).ok());
  ASSERT_TRUE(courier->leave_fallback(path, report_text("run-a", 1)).ok());
  rank_goes(&courier);
  EXPECT_EQ(read_file(path), report_text("run-a", 9));

  // A report left at the same --out path by an earlier run is no answer for this one.
  ASSERT_TRUE(ReportCourier::start(&courier).ok());
  ASSERT_TRUE(courier->leave_fallback(path, report_text("run-b", 1)).ok());
  rank_goes(&courier);
  EXPECT_EQ(read_file(path), report_text("run-b", 1));
}

TEST(ReportCourier, RemovesTheRunFolderOnlyOnceNoRankHoldsItsLock) {
  TempDir dir;
  const std::string folder = dir.path() + "/" + kRunFolder;
  ASSERT_EQ(mkdir(folder.c_str(), 0755), 0);
  write_file(folder + "/shard", "data");
  write_file(dir.path() + "/beside", "not the run's");
  // Another rank of the run, still in it.
  const int lock_fd = open((folder + "/" + kRunLockName).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(lock_fd, 0);
  ASSERT_EQ(flock(lock_fd, LOCK_SH), 0);

  bool removed = true;
  ASSERT_TRUE(remove_run_dir_once_released(folder, std::chrono::milliseconds(200), &removed).ok());
  EXPECT_FALSE(removed);
  EXPECT_TRUE(std::filesystem::exists(folder + "/shard")) << "removed while a rank held the run lock";

  std::unique_ptr<ReportCourier> courier;
  ASSERT_TRUE(ReportCourier::start(&courier).ok());
  ASSERT_TRUE(courier->remove_if_gone(folder).ok());
  const pid_t pid = courier->pid();
  courier.reset();
  EXPECT_TRUE(std::filesystem::exists(folder + "/shard"));
  close(lock_fd);  // the last rank leaves
  int status = 0;
  ASSERT_TRUE(wait_for_exit(pid, std::chrono::seconds(60), &status));
  EXPECT_FALSE(std::filesystem::exists(folder));
  EXPECT_EQ(read_file(dir.path() + "/beside"), "not the run's");
}

TEST(ReportCourier, NeverRemovesAFolderNotNamedLikeARunFolder) {
  TempDir dir;
  const std::string folder = dir.path() + "/precious";
  ASSERT_EQ(mkdir(folder.c_str(), 0755), 0);
  write_file(folder + "/data", "keep");
  bool removed = true;
  EXPECT_FALSE(remove_run_dir_once_released(folder, std::chrono::milliseconds(0), &removed).ok());
  EXPECT_FALSE(removed);
  EXPECT_EQ(read_file(folder + "/data"), "keep");
}

}  // namespace
}  // namespace iofab::testing
