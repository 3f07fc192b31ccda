// agree(): every rank leaves with the same outcome, the first failure by rank
// order with its rank named; an interruption never hides an error; a
// malformed ballot is an error naming its rank on every rank, and a lost
// rank is the Comm's own failure, never a hang or an exception.
#include "harness/comm/agree.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "comm_fakes.h"
#include "thread_comm.h"

namespace iofab {
namespace {

// Each rank brings by_rank[rank]; returns what each rank got back.
std::vector<Status> agree_on(const std::vector<Status>& by_rank) {
  std::vector<Status> got(by_rank.size());
  testing::run_ranks(static_cast<int>(by_rank.size()), [&](Comm& comm) {
    got[static_cast<size_t>(comm.rank())] = agree(comm, by_rank[comm.rank()]);
  });
  return got;
}

TEST(Agree, EveryRankOkIsOkOnEveryRank) {
  for (const Status& s : agree_on({Status::Ok(), Status::Ok(), Status::Ok()}))
    EXPECT_TRUE(s.ok()) << s.message();
}

TEST(Agree, TheFirstFailingRankReachesEveryRankWithItsRankNamed) {
  const auto got =
      agree_on({Status::Ok(), Status::IoError("disk full"), Status::Invalid("bad path"), Status::Ok()});
  for (size_t r = 0; r < got.size(); ++r) {
    EXPECT_EQ(got[r].code(), Status::Code::kIoError) << r;
    EXPECT_EQ(got[r].message(), "rank 1: disk full") << r;
  }
}

TEST(Agree, AnInterruptionNeverHidesAnError) {
  const auto got = agree_on({Status::Interrupted(), Status::Ok(), Status::Unavailable("no GPU")});
  for (const Status& s : got) {
    EXPECT_EQ(s.code(), Status::Code::kUnavailable);
    EXPECT_EQ(s.message(), "rank 2: no GPU");
  }
}

TEST(Agree, AnInterruptionAloneComesBackAsItIs) {
  for (const Status& s : agree_on({Status::Ok(), Status::Interrupted("stopped by signal 2")})) {
    EXPECT_EQ(s.code(), Status::Code::kInterrupted);
    EXPECT_EQ(s.message(), "stopped by signal 2");
  }
}

TEST(Agree, OneRankKeepsItsOwnWords) {
  SelfComm comm;
  const Status s = agree(comm, Status::Invalid("target is not a folder"));
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "target is not a folder");
}

TEST(Agree, EveryRankLeavesWithTheRulesVerdictAndTheLargestFigure) {
  const std::vector<double> figures = {1.5, 3.25, 2.0};
  std::vector<Ballot> got(figures.size());
  std::vector<size_t> rule_ran_with(figures.size(), 0);
  testing::run_ranks(3, [&](Comm& comm) {
    const auto r = static_cast<size_t>(comm.rank());
    const AgreeRule count_ballots = [&](const std::vector<Status>& all) {
      rule_ran_with[r] = all.size();
      return Status::Internal(std::to_string(all.size()) + " ballots");
    };
    Status s = agree(comm, Ballot{Status::Ok(), figures[r]}, count_ballots, &got[r]);
    EXPECT_TRUE(s.ok()) << s.message();
  });
  for (size_t r = 0; r < got.size(); ++r) {
    EXPECT_EQ(got[r].status.message(), "3 ballots") << r;
    EXPECT_EQ(got[r].figure, 3.25) << r;
  }
  // The rule runs on rank 0 alone: the others take its verdict.
  EXPECT_EQ(rule_ran_with, (std::vector<size_t>{3, 0, 0}));
}

TEST(Agree, ABallotThatIsNotAWireValueFailsEveryRankNamingItsSender) {
  std::vector<Status> got(3);
  testing::run_ranks(3, [&](Comm& comm) {
    const auto r = static_cast<size_t>(comm.rank());
    if (r == 2) {
      testing::ForgingComm forged(comm, "{\"status\":");
      got[r] = agree(forged, Status::Ok());
    } else {
      got[r] = agree(comm, Status::Ok());
    }
  });
  for (size_t r = 0; r < got.size(); ++r) {
    EXPECT_EQ(got[r].code(), Status::Code::kInternal) << r;
    EXPECT_EQ(got[r].message(), "rank 2 sent a bad status: not a wire value (MessagePack)") << r;
  }
}

TEST(Agree, ABallotOfTheWrongShapeSaysWhichField) {
  std::vector<Status> got(2);
  testing::run_ranks(2, [&](Comm& comm) {
    const auto r = static_cast<size_t>(comm.rank());
    if (r == 1) {
      testing::ForgingComm forged(comm, R"({"status": {"code": 99, "message": "x"}, "figure": 0})");
      got[r] = agree(forged, Status::Ok());
    } else {
      got[r] = agree(comm, Status::Ok());
    }
  });
  for (const Status& s : got) {
    EXPECT_EQ(s.code(), Status::Code::kInternal);
    EXPECT_EQ(s.message(), "rank 1 sent a bad status: status: code: 99 is no status code");
  }
}

TEST(Agree, ALostRankIsTheCommsFailureAndLeavesTheVerdictAlone) {
  testing::LostPeerComm comm;
  EXPECT_EQ(agree(comm, Status::Ok()).message(), testing::LostPeerComm::kFailure);
  Ballot verdict{Status::Invalid("untouched"), 7};
  const Status s = agree(comm, Ballot{Status::Ok(), 1}, first_failure, &verdict);
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_EQ(s.message(), testing::LostPeerComm::kFailure);
  EXPECT_TRUE(comm.failed());
  EXPECT_EQ(verdict.status.message(), "untouched");
  EXPECT_EQ(verdict.figure, 7);
}

TEST(AgreeAllOk, EveryRankLearnsWhetherEveryStatusWasOk) {
  for (const auto& [by_rank, expected] :
       {std::pair{std::vector<Status>{Status::Ok(), Status::Ok(), Status::Ok()}, true},
        std::pair{std::vector<Status>{Status::Ok(), Status::Ok(), Status::IoError("disk")}, false},
        std::pair{std::vector<Status>{Status::Interrupted("stop"), Status::Ok(), Status::Ok()}, false}}) {
    std::vector<int> got(by_rank.size(), -1);
    testing::run_ranks(static_cast<int>(by_rank.size()), [&](Comm& comm) {
      bool all_ok = !expected;
      const Status s = agree_all_ok(comm, by_rank[static_cast<size_t>(comm.rank())], &all_ok);
      EXPECT_TRUE(s.ok()) << s.message();
      got[static_cast<size_t>(comm.rank())] = all_ok ? 1 : 0;
    });
    for (int g : got) EXPECT_EQ(g, expected ? 1 : 0);
  }
}

TEST(AgreeAllTrue, OneRankSayingNoMakesItFalseOnEveryRank) {
  for (int no : {-1, 0, 2}) {
    std::vector<int> got(3, -1);
    testing::run_ranks(3, [&](Comm& comm) {
      bool all_true = no >= 0;
      const Status s = agree_all_true(comm, comm.rank() != no, &all_true);
      EXPECT_TRUE(s.ok()) << s.message();
      got[static_cast<size_t>(comm.rank())] = all_true ? 1 : 0;
    });
    for (int g : got) EXPECT_EQ(g, no < 0 ? 1 : 0) << "rank " << no << " said no";
  }
}

TEST(AgreeAllOk, ALostRankIsTheCommsFailureAndLeavesTheAnswerAlone) {
  testing::LostPeerComm comm;
  bool all_ok = true;
  EXPECT_EQ(agree_all_ok(comm, Status::Ok(), &all_ok).message(), testing::LostPeerComm::kFailure);
  EXPECT_TRUE(all_ok);
}

TEST(AgreeFirstFailure, PicksTheFirstRealErrorThenTheFirstInterruption) {
  EXPECT_TRUE(first_failure({}).ok());
  EXPECT_TRUE(first_failure({Status::Ok(), Status::Ok()}).ok());
  const Status e = first_failure({Status::Interrupted("a"), Status::Internal("b"), Status::IoError("c")});
  EXPECT_EQ(e.code(), Status::Code::kInternal);
  EXPECT_EQ(e.message(), "rank 1: b");
  const Status i = first_failure({Status::Ok(), Status::Interrupted("first"), Status::Interrupted("second")});
  EXPECT_EQ(i.code(), Status::Code::kInterrupted);
  EXPECT_EQ(i.message(), "first");
}

}  // namespace
}  // namespace iofab
