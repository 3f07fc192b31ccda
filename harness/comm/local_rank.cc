#include "harness/comm/local_rank.h"

#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "harness/comm/rank_gather.h"

namespace iofab {

Status find_local_rank(Comm& comm, LocalRank* out) {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) std::snprintf(name, sizeof name, "unknown");
  std::vector<std::string> hosts;
  Status s = all_gather(comm, std::string(name), &hosts);
  if (!s.ok()) return s;
  // Compared as they travelled: a name that is not UTF-8 arrives changed, the same for every rank.
  const auto me = static_cast<size_t>(comm.rank());
  LocalRank local{0, 0, name};
  for (size_t r = 0; r < hosts.size(); ++r) {
    if (hosts[r] != hosts[me]) continue;
    if (r < me) ++local.rank;
    ++local.size;
  }
  *out = std::move(local);
  return Status::Ok();
}

}  // namespace iofab
