// Ranks agree on one outcome. Every rank brings its own Status; rank 0 reads
// them all, in rank order, and applies a rule; every rank leaves with the
// same verdict. Every rank must call it at the same points, whatever its own
// status, or the others wait for it (until the Comm's rank timeout, or
// shortly after a stop signal).
//
// One exchange carries it: a gather of every rank's ballot to rank 0 and a
// broadcast of the verdict, each a Status in its one wire form (wire.h).
// A failure of the Comm (a lost rank) is returned as the Comm's Status; the
// Comm is then failed() and makes no more calls.
#pragma once

#include <functional>
#include <vector>

#include "harness/comm/comm.h"
#include "harness/comm/wire.h"
#include "harness/core/status.h"

namespace iofab {

// Turns every rank's Status, in rank order, into the one outcome. Runs on rank 0 only.
using AgreeRule = std::function<Status(const std::vector<Status>& by_rank)>;

// The usual rule: the first real error by rank order, its message led by
// "rank N: " when there are several ranks; else the first interruption, as it
// is (a Ctrl-C never hides a failure); else Ok. The error keeps its code.
Status first_failure(const std::vector<Status>& by_rank);

// The outcome every rank leaves with: first_failure of every rank's Status,
// or the Comm's failure.
Status agree(Comm& comm, const Status& mine);

// Yes-or-no questions to every rank, answered by one verdict (not a table of every rank's answer sent
// to every rank: docs/scale.md). Each returns Ok with *answer the same on every rank, or the Comm's
// failure. all_ok: every rank's Status is Ok (a ballot that arrives malformed counts as not Ok).
Status agree_all_ok(Comm& comm, const Status& mine, bool* all_ok);
// all_true: every rank brought true.
Status agree_all_true(Comm& comm, bool mine, bool* all_true);

// What one rank brings to an agreement, and what every rank leaves with.
struct Ballot {
  Status status;
  // A figure every rank must end up sharing (the slowest rank's pace, say):
  // the verdict carries the largest any rank brought. Finite.
  double figure = 0;
};
nlohmann::json to_wire(const Ballot& b);
Status from_wire(const nlohmann::json& j, Ballot* out);

// The general form. Returns Ok once *verdict holds the rule's outcome and the
// largest figure, the same on every rank; or the Comm's failure, *verdict
// untouched. A ballot that arrives malformed makes the verdict an Internal
// error naming its rank, on every rank alike.
Status agree(Comm& comm, const Ballot& mine, const AgreeRule& rule, Ballot* verdict);

}  // namespace iofab
