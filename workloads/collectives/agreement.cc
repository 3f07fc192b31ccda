#include "workloads/collectives/agreement.h"

#include <algorithm>
#include <string>
#include <vector>

namespace iofab {

Status agree_to_continue(Comm& comm, const Status& mine, const std::atomic<bool>& stop, double* slowest) {
  constexpr double kFailed = -2.0, kStopped = -1.0;
  std::vector<double> all;
  const double flag = !mine.ok() ? kFailed : stop.load() ? kStopped : slowest != nullptr ? *slowest : 0.0;
  Status g = comm.all_gather(flag, &all);
  if (!g.ok()) return g;
  if (!mine.ok()) return mine;
  for (size_t r = 0; r < all.size(); ++r) {
    if (all[r] == kFailed) return Status::IoError("rank " + std::to_string(r) + " failed");
  }
  if (std::find(all.begin(), all.end(), kStopped) != all.end()) return Status::Interrupted();
  if (slowest != nullptr) *slowest = *std::max_element(all.begin(), all.end());
  return Status::Ok();
}

}  // namespace iofab
