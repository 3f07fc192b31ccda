#include "harness/comm/local_rank.h"

#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace iofab {

Status find_local_rank(Comm& comm, LocalRank* out) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::vector<std::string> hosts;
  Status s = comm.gather(host, &hosts, 0);
  if (!s.ok()) return s;
  // Rank 0 numbers the ranks on each host and sends every rank its "rank size" pair.
  std::string table;
  if (comm.rank() == 0) {
    std::map<std::string, int> per_host;
    std::vector<int> local(hosts.size());
    for (size_t r = 0; r < hosts.size(); ++r) local[r] = per_host[hosts[r]]++;
    for (size_t r = 0; r < hosts.size(); ++r) {
      table += std::to_string(local[r]) + " " + std::to_string(per_host[hosts[r]]) + "\n";
    }
  }
  s = comm.broadcast(&table, 0);
  if (!s.ok()) return s;
  size_t pos = 0;
  for (int r = 0; r < comm.rank() && pos != std::string::npos; ++r) {
    pos = table.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  if (pos == std::string::npos || pos >= table.size()) return Status::Internal("local rank table is short");
  if (std::sscanf(table.c_str() + pos, "%d %d", &out->rank, &out->size) != 2) {
    return Status::Internal("local rank table is malformed");
  }
  return Status::Ok();
}

}  // namespace iofab
