// Ranks out of step (issue 28, item 9): every rank shows rank 0 what it is about to run before anything
// is made; ranks that differ are refused on every rank alike, naming the ranks and what differs, never
// left to wait for each other until the rank timeout. A rank that sends something else is out of step
// too (bad input), and a lost rank is the Comm's failure.
#include "driver/runner/same_run.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "comm_fakes.h"
#include "harness/comm/agree.h"
#include "harness/comm/rank_gather.h"
#include "driver/runner/runner.h"
#include "test_util.h"
#include "thread_comm.h"

namespace iofab {
namespace {

RunIdentity identity(const std::string& target, const std::string& suite = "sha256 1") {
  return RunIdentity{{{"suite", suite}, {"target", target}, {"--rank-timeout", "600 s"}}};
}

TEST(SameRun, RanksThatAgreePass) {
  EXPECT_TRUE(compare_run_identities({identity("/a"), identity("/a"), identity("/a")}).ok());
  EXPECT_TRUE(compare_run_identities({identity("/a")}).ok());
}

TEST(SameRun, EachDifferenceNamesItsRanksAndBothValues) {
  const Status s = compare_run_identities(
      {identity("/a"), identity("/b"), identity("/a", "sha256 2"), identity("/b"), identity("/b"), identity("/b")});
  ASSERT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("ranks out of step"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("target: ranks 1, 3-5 have /b; rank 0 has /a"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("suite: rank 2 has sha256 2; rank 0 has sha256 1"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("nothing was written"), std::string::npos) << s.message();
}

TEST(SameRun, AFieldARankDidNotSendIsADifference) {
  RunIdentity older = identity("/a");
  older.fields.pop_back();
  const Status s = compare_run_identities({identity("/a"), older});
  EXPECT_NE(s.message().find("--rank-timeout: rank 1 has (not sent"), std::string::npos) << s.message();
}

TEST(SameRun, RankRangesStayShort) {
  EXPECT_EQ(rank_ranges({}), "");
  EXPECT_EQ(rank_ranges({3}), "3");
  EXPECT_EQ(rank_ranges({1, 2}), "1, 2");
  EXPECT_EQ(rank_ranges({1, 2, 3, 7, 9, 10, 11, 12}), "1-3, 7, 9-12");
}

TEST(SameRun, EveryRankLeavesWithTheSameVerdict) {
  std::vector<Status> got(3);
  testing::run_ranks(3, [&](Comm& comm) {
    got[static_cast<size_t>(comm.rank())] = agree_same_run(comm, identity(comm.rank() == 2 ? "/c" : "/a"));
  });
  for (const Status& s : got) {
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
    EXPECT_EQ(s.message(), got[0].message());
    EXPECT_NE(s.message().find("target: rank 2 has /c; rank 0 has /a"), std::string::npos) << s.message();
  }
}

TEST(SameRun, ARankThatSendsSomethingElseIsOutOfStepNotLost) {
  std::vector<Status> got(2);
  std::vector<bool> failed(2);
  testing::run_ranks(2, [&](Comm& comm) {
    testing::ForgingComm forging(comm, R"("restore result")");
    Comm& c = comm.rank() == 1 ? static_cast<Comm&>(forging) : comm;
    got[static_cast<size_t>(comm.rank())] = agree_same_run(c, identity("/a"));
    failed[static_cast<size_t>(comm.rank())] = c.failed();
  });
  for (size_t r = 0; r < got.size(); ++r) {
    EXPECT_EQ(got[r].code(), Status::Code::kInvalidArgument) << got[r].message();
    EXPECT_NE(got[r].message().find("ranks out of step: rank 1 sent a bad description of its run"),
              std::string::npos)
        << got[r].message();
    EXPECT_FALSE(failed[r]) << "a live rank is not lost";
  }
}

// Every reader of other ranks' answers notes a rank whose answer cannot be read: alive (it answered), so
// a later wait that gives up on it names it as out of step, never as lost (MpiComm's wait).
TEST(OutOfStep, ARankWhoseAnswerCannotBeReadIsNotedAliveNotLost) {
  std::vector<std::vector<int>> noted(2), lost(2);
  std::vector<Status> got(2);
  testing::run_ranks(2, [&](Comm& comm) {
    testing::ForgingComm forging(comm, R"("a string")");
    Comm& c = comm.rank() == 1 ? static_cast<Comm&>(forging) : comm;
    std::vector<uint64_t> all;
    got[static_cast<size_t>(comm.rank())] = gather_to_root(c, uint64_t{7}, &all);
    Ballot verdict;
    agree(c, Ballot{Status::Ok()}, first_failure, &verdict).ignore_error();
    noted[static_cast<size_t>(comm.rank())] = c.out_of_step_ranks();
    lost[static_cast<size_t>(comm.rank())] = c.lost_ranks();
  });
  EXPECT_NE(got[0].message().find("rank 1 sent a bad result"), std::string::npos) << got[0].message();
  EXPECT_EQ(noted[0], std::vector<int>{1});
  EXPECT_TRUE(noted[1].empty()) << "only the reader knows";
  EXPECT_TRUE(lost[0].empty());
}

TEST(SameRun, ALostRankIsTheCommsFailure) {
  testing::LostPeerComm lost;
  const Status s = agree_same_run(lost, identity("/a"));
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_EQ(s.message(), testing::LostPeerComm::kFailure);
}

// The runner asks before anything is made: two ranks given different targets (or one a suite that does
// not load) both return InvalidArgument, and neither target holds a run folder.
std::vector<Status> run_two_ranks(const std::vector<RunOptions>& by_rank) {
  std::vector<Status> got(2);
  testing::run_ranks(2, [&](Comm& comm) {
    Report report;
    got[static_cast<size_t>(comm.rank())] =
        run_suite(comm, by_rank[static_cast<size_t>(comm.rank())], &report);
  });
  return got;
}

RunOptions options(const std::string& suite, const std::string& target) {
  RunOptions o;
  o.suite = suite;
  o.target = target;
  o.quiet = true;
  return o;
}

bool holds_a_run_folder(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().filename().string().starts_with("iofab-")) return true;
  }
  return false;
}

TEST(SameRun, TheRunnerRefusesRanksGivenDifferentTargetsBeforeMakingAnything) {
  testing::TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json";
  testing::write_file(suite, R"({"phases": [{"kind": "ingest", "file_size": "1MiB"}]})");
  std::filesystem::create_directories(dir.path() + "/t3");
  std::filesystem::create_directories(dir.path() + "/t4");
  RunOptions a = options(suite, dir.path() + "/t3");
  RunOptions b = a;
  b.target = dir.path() + "/t4";
  for (const Status& s : run_two_ranks({a, b})) {
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.message();
    EXPECT_NE(s.message().find("target: rank 1 has \"" + dir.path() + "/t4\""), std::string::npos)
        << s.message();
  }
  EXPECT_FALSE(holds_a_run_folder(dir.path() + "/t3"));
  EXPECT_FALSE(holds_a_run_folder(dir.path() + "/t4"));
}

TEST(SameRun, ARankWhoseSuiteDoesNotLoadStopsEveryRank) {
  testing::TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json";
  testing::write_file(suite, R"({"phases": [{"kind": "ingest", "file_size": "1MiB"}]})");
  RunOptions a = options(suite, dir.path());
  RunOptions b = a;
  b.suite = dir.path() + "/missing.json";
  for (const Status& s : run_two_ranks({a, b})) {
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.message();
    EXPECT_NE(s.message().find("suite: rank 1 has one that does not load"), std::string::npos) << s.message();
  }
  EXPECT_FALSE(holds_a_run_folder(dir.path()));
}

TEST(SameRun, RanksGivenOtherOptionsAreNamed) {
  testing::TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json";
  testing::write_file(suite, R"({"phases": [{"kind": "ingest", "file_size": "1MiB"}]})");
  RunOptions a = options(suite, dir.path());
  RunOptions b = a;
  b.rank_timeout_s = 90;
  b.sets = {"phases.ingest.file_size=2MiB"};
  b.agreed = {{"--scale", "4"}};
  a.agreed = {{"--scale", "(none)"}};
  for (const Status& s : run_two_ranks({a, b})) {
    EXPECT_NE(s.message().find("--rank-timeout: rank 1 has 90 s; rank 0 has 600 s"), std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find("suite: rank 1 has sha256"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("--scale: rank 1 has 4; rank 0 has (none)"), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace iofab
