#include "workloads/collectives/agreement.h"

#include <string>
#include <vector>

namespace iofab {

Status agree_to_continue(Comm& comm, const Status& mine, const std::atomic<bool>& stop) {
  std::vector<double> all;
  const double flag = !mine.ok() ? 2.0 : stop.load() ? 1.0 : 0.0;
  Status g = comm.all_gather(flag, &all);
  if (!g.ok()) return g;
  if (!mine.ok()) return mine;
  for (size_t r = 0; r < all.size(); ++r) {
    if (all[r] == 2.0) return Status::IoError("rank " + std::to_string(r) + " failed");
  }
  for (double v : all) {
    if (v == 1.0) return Status::Interrupted();
  }
  return Status::Ok();
}

}  // namespace iofab
