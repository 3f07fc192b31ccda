// Where a rank sits on its host: its index among the ranks that share the
// host, and how many there are. Found by hostname over the control plane, so
// it works under any launcher (mpirun, srun) without reading its variables.
#pragma once

#include <string>

#include "harness/comm/comm.h"
#include "harness/core/status.h"

namespace iofab {

struct LocalRank {
  int rank = 0;      // among the ranks on this host, in world-rank order
  int size = 1;      // ranks on this host
  std::string host;  // this host's name ("unknown" when it has none)
};

// Collective over comm: every rank must call it.
Status find_local_rank(Comm& comm, LocalRank* out);

}  // namespace iofab
