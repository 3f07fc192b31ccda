// The table of target kinds: every target string has one kind, and a new kind (an object store that is
// not S3) is a folder of its code plus one row, with no change to the runner.
#include <gtest/gtest.h>

#include "harness/fake_object_store/fake_object_target.h"
#include "harness/comm/comm.h"
#include "driver/runner/runner.h"
#include "driver/suite/suite.h"
#include "driver/targets/run_target.h"
#include "driver/targets/s3/s3_settings.h"
#include "test_util.h"

namespace iofab {
namespace {

using testing::TempDir;
using testing::write_file;

TEST(TargetKinds, EveryTargetStringHasOneKindAndTheFolderTakesTheRest) {
  EXPECT_EQ(run_target_kind("s3://bucket/prefix").name, "s3");
  EXPECT_EQ(run_target_kind("/var/tmp/iofab").name, "folder");
  EXPECT_EQ(run_target_kind("./iofab-data").name, "folder");
  // A scheme iofab does not know is a folder's name, as the shell would take it.
  EXPECT_EQ(run_target_kind("mem://x").name, "folder");
  for (const auto& k : run_target_kinds()) {
    EXPECT_NE(k.make, nullptr) << k.name;
    EXPECT_NE(k.check_suite, nullptr) << k.name;
    EXPECT_NE(k.clean, nullptr) << k.name;
  }
  EXPECT_EQ(run_target_kinds().back().claims, nullptr) << "the last row takes what no other claims";
}

// The built-in rows behind one row of the fake object store.
std::vector<RunTargetKind> kinds_with_fake() {
  std::vector<RunTargetKind> kinds = {{.name = "mem",
                                       .shown = "mem (a fake object store)",
                                       .claims = fake::claims_mem,
                                       .make = fake::make_fake_object_target,
                                       .check_suite = fake::check_suite_on_fake,
                                       .clean = fake::clean_fake}};
  for (const auto& k : run_target_kinds()) kinds.push_back(k);
  return kinds;
}

std::string small_suite(const TempDir& dir) {
  const std::string path = dir.path() + "/suite.json";
  write_file(path, R"({"defaults": {"engine": "psync", "direct": false, "workers": 1},
    "phases": [{"kind": "ingest", "name": "ingest", "files_per_worker": 2, "file_size": "1MiB",
                "block_size": "256KiB", "queue_depth": 1}]})");
  return path;
}

// The small suite on "mem://bench", the fake store holding capacity bytes.
Status run_on_fake(uint64_t capacity, Report* report) {
  TempDir dir;
  const std::vector<RunTargetKind> kinds = kinds_with_fake();
  fake::fake_log() = fake::FakeObjectStoreLog{};
  fake::fake_log().capacity = capacity;
  SelfComm comm;
  RunOptions opts;
  opts.suite = small_suite(dir);
  opts.target = "mem://bench";
  opts.quiet = true;
  opts.target_kinds = &kinds;
  return run_suite(comm, opts, report);
}

TEST(TargetKinds, AFakeObjectStoreIsOneRowAndTheRunnerUsesItUnchanged) {
  Report report;
  ASSERT_TRUE(run_on_fake(1ULL << 30, &report).ok());
  ASSERT_EQ(report.phases.size(), 1u);
  EXPECT_EQ(report.phases[0].status, PhaseStatus::kPassed) << report.phases[0].reason;
  EXPECT_DOUBLE_EQ(report.phases[0].metrics.value("write_bytes", 0.0), 2.0 * (1 << 20));
  EXPECT_EQ(report.target.value("fs_type", ""), "fake-object");
  EXPECT_TRUE(report.target.value("run_folder", "").starts_with("mem://bench/iofab-"));
  // The runner removed the run's objects through the kind, and the store held nothing more.
  EXPECT_TRUE(fake::fake_log().removed);
  EXPECT_TRUE(fake::fake_log().left_after.empty());
  EXPECT_FALSE(report.target.contains("free_bytes_after")) << "the fake has no free-space figure after";
}

TEST(TargetKinds, TheFakeKindsFreeSpaceIsWhatThePreflightChecks) {
  Report report;
  const Status s = run_on_fake(1 << 20, &report);  // less than the suite's 2 MiB plus the margin
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("preflight: target mem://bench has 1048576 bytes free"), std::string::npos)
      << s.message();
  EXPECT_TRUE(fake::fake_log().listed_during_run.empty()) << "refused before the run's place was opened";
}

TEST(TargetKinds, AKindsSuiteSectionIsReadByItsOwnCodeAndSetReachesIt) {
  ASSERT_NE(target_kind_of_section("s3"), nullptr);
  EXPECT_EQ(target_kind_of_section("s3")->name, "s3");
  EXPECT_EQ(target_kind_of_section("phases"), nullptr);
  EXPECT_EQ(target_kind_of_section(""), nullptr);
  Suite suite;
  Status st = parse_suite(R"({"s3": {"endpoint": "http://127.0.0.1:9000", "region": "eu-west-1"},
                              "phases": [{"kind": "ingest"}]})",
                          "test", {"s3.connections=4"}, &suite);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_EQ(suite.target_settings.count("s3"), 1u);
  const S3Settings s3 = s3_settings_of(suite);
  EXPECT_TRUE(s3.given);
  EXPECT_EQ(s3.endpoint, "http://127.0.0.1:9000");
  EXPECT_EQ(s3.region, "eu-west-1");
  EXPECT_EQ(s3.connections, 4u);
  Suite plain;
  ASSERT_TRUE(parse_suite(R"({"phases": [{"kind": "ingest"}]})", "test", {}, &plain).ok());
  EXPECT_TRUE(plain.target_settings.empty());
  EXPECT_FALSE(s3_settings_of(plain).given);
  // The kind checks its section when the suite is read; the messages name the kinds' sections.
  st = parse_suite(R"({"s3": {"connections": 0}, "phases": [{"kind": "ingest"}]})", "test", {}, &suite);
  EXPECT_NE(st.message().find("s3.connections: expected an integer 1..1024, got 0"), std::string::npos)
      << st.message();
  st = parse_suite(R"({"s4": {}, "phases": [{"kind": "ingest"}]})", "test", {}, &suite);
  EXPECT_NE(st.message().find("s4: unknown key; expected name, description, target, target_scope, s3, "),
            std::string::npos)
      << st.message();
  st = parse_suite(R"({"phases": [{"kind": "ingest"}]})", "test", {"s4.endpoint=x"}, &suite);
  EXPECT_EQ(st.message(), "--set s4.endpoint: unknown path; expected target, s3.KEY, defaults.KEY or phases.NAME.KEY");
}

}  // namespace
}  // namespace iofab
