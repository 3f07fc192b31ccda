#include "workloads/checkpoint/tier_params.h"

#include <string>

#include "harness/phase/params.h"
#include "workloads/local_folder.h"

namespace iofab {

void read_tier_params(ParamReader& r, CheckpointParams* p) {
  p->two_tier = r.choice("tier", "single", {"single", "two"}) == "two";
  const bool has_dir = r.raw("local_dir") != nullptr;
  p->local_dir = r.string("local_dir", "");
  if (!p->two_tier) {
    if (has_dir) r.fail("local_dir", "applies only with tier: two");
    p->local_dir.clear();
    return;
  }
  if (p->async) {
    // Two drains in a row (host memory to local, local to shared) is a third tier, not this one.
    r.fail("mode",
           "tier: two writes the local tier synchronously and drains it in the background; use "
           "mode: sync (the default) with it");
  }
  if (p->local_dir.empty() || p->local_dir.front() != '/') {
    r.fail("local_dir",
           "required with tier: two: an absolute folder on node-local storage, like \"/local/nvme\"");
    return;
  }
  // Refused here, before anything is written, where this host can tell; the phase checks again on every node.
  check_local_folder_param(r, "local_dir", p->local_dir, false);
}

}  // namespace iofab
