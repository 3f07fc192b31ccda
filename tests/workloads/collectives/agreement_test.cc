// agree_to_continue: ranks go on together or stop together. A rank's own
// error stays its own, the others hear "rank N failed"; a stop flag on any
// rank stops every rank, after failures; the slowest pace is shared.
#include "workloads/collectives/agreement.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "comm_fakes.h"
#include "thread_comm.h"

namespace iofab {
namespace {

struct Outcome {
  Status status;
  double slowest = 0;
};

// Rank r brings mine[r], its own stop flag stopped[r] and pace[r].
std::vector<Outcome> continue_on(const std::vector<Status>& mine, const std::vector<bool>& stopped,
                                 const std::vector<double>& pace) {
  std::vector<Outcome> got(mine.size());
  testing::run_ranks(static_cast<int>(mine.size()), [&](Comm& comm) {
    const auto r = static_cast<size_t>(comm.rank());
    const std::atomic<bool> stop{stopped[r]};
    got[r].slowest = pace[r];
    got[r].status = agree_to_continue(comm, mine[r], stop, &got[r].slowest);
  });
  return got;
}

TEST(AgreeToContinue, EveryRankGoesOnWithTheSlowestPace) {
  const auto got =
      continue_on({Status::Ok(), Status::Ok(), Status::Ok()}, {false, false, false}, {0.5, 2.5, 1.0});
  for (const auto& o : got) {
    EXPECT_TRUE(o.status.ok()) << o.status.message();
    EXPECT_EQ(o.slowest, 2.5);
  }
}

TEST(AgreeToContinue, AFailedRankKeepsItsErrorTheOthersHearItFailed) {
  const auto got =
      continue_on({Status::Ok(), Status::IoError("ncclAllReduce: unhandled cuda error"), Status::Ok()},
                  {false, false, true}, {1, 1, 1});
  EXPECT_EQ(got[1].status.message(), "ncclAllReduce: unhandled cuda error");
  for (size_t r : {0u, 2u}) {
    EXPECT_EQ(got[r].status.code(), Status::Code::kIoError) << r;
    EXPECT_EQ(got[r].status.message(), "rank 1 failed") << r;
    EXPECT_EQ(got[r].slowest, 1) << r;  // untouched when the ranks do not go on
  }
}

TEST(AgreeToContinue, AnInterruptionARankReturnedIsAFailureToTheOthers) {
  const auto got = continue_on({Status::Interrupted(), Status::Ok()}, {false, false}, {0, 0});
  EXPECT_EQ(got[0].status.code(), Status::Code::kInterrupted);
  EXPECT_EQ(got[1].status.message(), "rank 0 failed");
}

TEST(AgreeToContinue, AStopFlagOnOneRankStopsEveryRank) {
  const auto got = continue_on({Status::Ok(), Status::Ok(), Status::Ok()}, {false, true, false}, {0, 0, 0});
  for (const auto& o : got) EXPECT_EQ(o.status.code(), Status::Code::kInterrupted);
}

TEST(AgreeToContinue, ALostRankIsTheCommsFailure) {
  testing::LostPeerComm comm;
  const std::atomic<bool> stop{false};
  EXPECT_EQ(agree_to_continue(comm, Status::IoError("mine"), stop).message(),
            testing::LostPeerComm::kFailure);
}

}  // namespace
}  // namespace iofab
