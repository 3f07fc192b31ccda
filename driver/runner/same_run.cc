#include "driver/runner/same_run.h"

#include <map>

#include "harness/comm/rank_gather.h"

namespace iofab {

using nlohmann::json;

json to_wire(const RunIdentity& id) {
  json a = json::array();
  for (const auto& [name, value] : id.fields) a.push_back(json::array({name, value}));
  return a;
}

Status from_wire(const json& j, RunIdentity* out) {
  if (!j.is_array())
    return Status::Internal("expected an array of [name, value], got " + std::string(j.type_name()));
  RunIdentity id;
  for (const json& f : j) {
    if (!f.is_array() || f.size() != 2 || !f[0].is_string() || !f[1].is_string()) {
      return Status::Internal("expected [name, value] texts, got " + std::string(f.type_name()));
    }
    id.fields.emplace_back(f[0].get<std::string>(), f[1].get<std::string>());
  }
  *out = std::move(id);
  return Status::Ok();
}

namespace {

// The value of field name in id; nullptr when id has no such field (another iofab version).
const std::string* value_of(const RunIdentity& id, const std::string& name) {
  for (const auto& [n, v] : id.fields) {
    if (n == name) return &v;
  }
  return nullptr;
}

// For each field of rank 0's that another rank has otherwise: "\n  NAME: rank(s) R has V; rank 0 has W".
std::string differences(const std::vector<RunIdentity>& by_rank) {
  if (by_rank.size() < 2) return "";
  const RunIdentity& root = by_rank[0];
  // Per field of rank 0's, per value another rank has there: which ranks. Rank 0's order of fields.
  std::string lines;
  for (const auto& [name, want] : root.fields) {
    std::map<std::string, std::vector<int>> differing;
    for (size_t r = 1; r < by_rank.size(); ++r) {
      const std::string* got = value_of(by_rank[r], name);
      const std::string shown = got == nullptr ? "(not sent: another iofab version?)" : *got;
      if (got == nullptr || *got != want) differing[shown].push_back(static_cast<int>(r));
    }
    for (const auto& [value, ranks] : differing) {
      lines += "\n  " + name + ": rank" + (ranks.size() == 1 ? " " : "s ") + rank_ranges(ranks) + " " +
               (ranks.size() == 1 ? "has " : "have ") + value + "; rank 0 has " + want;
    }
  }
  return lines;
}

using Verdict = Status (*)(const std::vector<RunIdentity>& by_rank);

// One gather of every rank's identity to rank 0, its verdict broadcast to every rank.
Status agree_identities(Comm& comm, const RunIdentity& mine, Verdict verdict_of) {
  std::vector<std::string> texts;
  Status s = comm.gather(wire_bytes(to_wire(mine)), &texts, 0);
  if (!s.ok()) return s;
  Status verdict;
  if (comm.rank() == 0) {
    std::vector<RunIdentity> all;
    // A rank that sent something else is out of step too (another iofab, another call): bad input,
    // not a lost rank.
    size_t bad = 0;
    Status read = decode_ranks(texts, &all, "description of its run", &bad);
    if (!read.ok()) comm.note_out_of_step(static_cast<int>(bad));
    verdict = read.ok() ? verdict_of(all)
                        : Status::Invalid("ranks out of step: " + read.message() +
                                          "; start every rank with the same iofab and the same arguments; "
                                          "nothing was written");
  }
  s = broadcast_value(comm, &verdict, 0, "verdict");
  return s.ok() ? verdict : s;
}

}  // namespace

Status compare_run_identities(const std::vector<RunIdentity>& by_rank) {
  const std::string lines = differences(by_rank);
  if (lines.empty()) return Status::Ok();
  return Status::Invalid(
      "ranks out of step: every rank must run the same suite on the same target with the same options, "
      "and these differ from rank 0's:" +
      lines +
      "\nstart every rank with the same arguments (an MPMD launch \"-np 1 iofab ... : -np 1 iofab ...\" "
      "must give each the same); nothing was written");
}

Status agree_same_run(Comm& comm, const RunIdentity& mine) {
  return agree_identities(comm, mine, compare_run_identities);
}

Status compare_run_places(const std::vector<RunIdentity>& by_rank) {
  const std::string lines = differences(by_rank);
  if (lines.empty()) return Status::Ok();
  return Status::Invalid(
      "ranks out of step: the target resolves to different places on the ranks, so their bytes would go "
      "to different stores measured as one; these differ from rank 0's:" +
      lines +
      "\ngive every node the same settings (AWS_ENDPOINT_URL, AWS_REGION, ~/.aws/config, the suite's "
      "\"s3\" section; a folder that is the same mount everywhere); nothing was written");
}

Status agree_same_place(Comm& comm, const RunIdentity& mine) {
  return agree_identities(comm, mine, compare_run_places);
}

}  // namespace iofab
