#include "harness/comm/agree.h"

#include <algorithm>
#include <string>

#include "harness/comm/rank_gather.h"
#include "harness/comm/wire.h"

namespace iofab {

using nlohmann::json;

json to_wire(const Ballot& b) { return {{"status", to_wire(b.status)}, {"figure", b.figure}}; }

Status from_wire(const json& j, Ballot* out) {
  WireReader r(j);
  r.field("status", &out->status).field("figure", &out->figure);
  return r.status();
}

Status first_failure(const std::vector<Status>& by_rank) {
  Status interrupted;
  for (size_t r = 0; r < by_rank.size(); ++r) {
    const Status& s = by_rank[r];
    if (s.ok()) continue;
    if (s.code() == Status::Code::kInterrupted) {
      if (interrupted.ok()) interrupted = s;
      continue;
    }
    if (by_rank.size() == 1) return s;
    return Status::FromCode(s.code(), "rank " + std::to_string(r) + ": " + s.message());
  }
  return interrupted;
}

Status agree(Comm& comm, const Status& mine) {
  Ballot verdict;
  Status s = agree(comm, Ballot{mine}, first_failure, &verdict);
  return s.ok() ? verdict.status : s;
}

Status agree_all_ok(Comm& comm, const Status& mine, bool* all_ok) {
  Ballot verdict;
  Status s = agree(comm, Ballot{mine}, first_failure, &verdict);
  if (s.ok()) *all_ok = verdict.status.ok();
  return s;
}

Status agree_all_true(Comm& comm, bool mine, bool* all_true) {
  // The verdict's figure is the largest brought: 1 when any rank said no.
  Ballot verdict;
  Status s = agree(comm, Ballot{Status::Ok(), mine ? 0.0 : 1.0}, first_failure, &verdict);
  if (s.ok()) *all_true = verdict.status.ok() && verdict.figure == 0;
  return s;
}

Status agree(Comm& comm, const Ballot& mine, const AgreeRule& rule, Ballot* verdict) {
  std::vector<std::string> texts;
  Status s = comm.gather(wire_bytes(to_wire(mine)), &texts, 0);
  if (!s.ok()) return s;
  Ballot out;
  if (comm.rank() == 0) {
    std::vector<Ballot> ballots;
    size_t bad = 0;
    Status read = decode_ranks(texts, &ballots, "status", &bad);
    if (!read.ok()) comm.note_out_of_step(static_cast<int>(bad));
    if (read.ok()) {
      std::vector<Status> statuses;
      for (size_t r = 0; r < ballots.size(); ++r) {
        statuses.push_back(ballots[r].status);
        out.figure = r == 0 ? ballots[r].figure : std::max(out.figure, ballots[r].figure);
      }
      out.status = rule(statuses);
    } else {
      out.status = read;
    }
  }
  s = broadcast_value(comm, &out, 0, "verdict");
  if (!s.ok()) return s;
  *verdict = std::move(out);
  return Status::Ok();
}

}  // namespace iofab
