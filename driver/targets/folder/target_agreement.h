// Does every rank see the same target? On many hosts a path can look shared and not be: each host's own
// /tmp, a node-local disk mounted at the same path, a mount missing on one host. Such a run passes its
// writes, then fails or hangs at the first read of another rank's file (issue 30, finding 1). Checked
// right after the run folder is made, before any phase: rank 0 writes a token (the run id and a random
// number) into its run folder; every rank reads it through its own; the ranks that do not find rank 0's
// token are named with their hosts, and the run is refused (InvalidArgument, exit 2), its folders
// removed. target_scope "host" asks for each host's own folder on purpose: no check then.
// Cost: one small file, one broadcast, one gather of a byte and a hostname a rank.
#pragma once

#include <string>

#include "harness/comm/comm.h"
#include "harness/core/status.h"
#include "harness/fs/run_dir.h"
#include "driver/suite/target_scope.h"

namespace iofab {

// Collective. run_dir: this rank's run folder, open (not open: an s3:// target, nothing to check).
Status agree_on_target(Comm& comm, RunDir& run_dir, const std::string& target_path, TargetScope scope);

// Rank 0's verdict from every rank's (hostname, saw the token), in rank order: Ok, or the refusal.
Status target_verdict(const std::string& target_path,
                      const std::vector<std::pair<std::string, bool>>& by_rank);

}  // namespace iofab
