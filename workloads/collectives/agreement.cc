#include "workloads/collectives/agreement.h"

#include <string>
#include <vector>

#include "harness/comm/agree.h"

namespace iofab {

namespace {

// A failed rank stops everyone with "rank N failed" (its own words stay with it), before a stop signal.
Status continue_rule(const std::vector<Status>& votes) {
  bool stopped = false;
  for (size_t r = 0; r < votes.size(); ++r) {
    if (votes[r].code() == Status::Code::kInterrupted) {
      stopped = true;
    } else if (!votes[r].ok()) {
      return Status::IoError("rank " + std::to_string(r) + " failed");
    }
  }
  return stopped ? Status::Interrupted() : Status::Ok();
}

}  // namespace

Status agree_to_continue(Comm& comm, const Status& mine, const std::atomic<bool>& stop, double* slowest) {
  // A rank's own failure votes as an error whatever its code, so an interruption it returned is a
  // failure to the others, apart from the stop flag, which is the only vote to stop.
  const Status vote = !mine.ok()    ? Status::IoError(mine.message())
                      : stop.load() ? Status::Interrupted()
                                    : Status::Ok();
  Ballot verdict;
  Status g = agree(comm, Ballot{vote, slowest != nullptr ? *slowest : 0.0}, continue_rule, &verdict);
  if (!g.ok()) return g;
  if (!mine.ok()) return mine;
  if (!verdict.status.ok()) return verdict.status;
  if (slowest != nullptr) *slowest = verdict.figure;
  return Status::Ok();
}

}  // namespace iofab
