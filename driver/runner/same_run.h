// Ranks out of step: every rank of a job must run the same suite on the same
// target with the same options, or they make different calls in a different
// order and wait for each other until the rank timeout (an MPMD launch, or a
// wrapper that gives ranks different arguments). Before anything is made,
// every rank shows rank 0 what it is about to run; rank 0 compares each with
// its own and every rank leaves with the one verdict: Ok, or InvalidArgument
// (exit 2) naming the ranks that differ and what differs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "harness/comm/comm.h"
#include "harness/comm/rank_ranges.h"  // rank_ranges, which the verdict uses
#include "harness/core/status.h"

namespace iofab {

// What one rank is about to run: named fields, each a short text a person can read
// ("target": "/mnt/a", "suite": "ckr.json, sha256 3f2a9c0d1e7b"). Compared field by field.
struct RunIdentity {
  std::vector<std::pair<std::string, std::string>> fields;
};
nlohmann::json to_wire(const RunIdentity& id);
Status from_wire(const nlohmann::json& j, RunIdentity* out);

// Rank 0's verdict on every rank's identity, in rank order: Ok when each matches rank 0's; else
// InvalidArgument naming, for each field that differs, the ranks that differ (as ranges) and both
// values.
Status compare_run_identities(const std::vector<RunIdentity>& by_rank);

// Collective, every rank at the same point: one gather to rank 0 and one broadcast of the verdict.
// Returns the verdict, or the Comm's failure (a lost rank).
Status agree_same_run(Comm& comm, const RunIdentity& mine);

// The same for where the bytes go, after each rank resolved the target on its host (RunTarget::placement:
// a folder's real path; an S3 endpoint, region, addressing, bucket): ranks given one target string that
// resolve it to two places are out of step too. InvalidArgument (exit 2) names each setting that differs,
// the ranks and both values.
Status compare_run_places(const std::vector<RunIdentity>& by_rank);
Status agree_same_place(Comm& comm, const RunIdentity& mine);

}  // namespace iofab
