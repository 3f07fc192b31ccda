#include "workloads/metadata/metadata_claims.h"

#include <algorithm>
#include <vector>

#include "harness/engines/io_driver.h"

namespace iofab {

Status create_until_stonewall(Comm& comm, const std::atomic<bool>& stop, unsigned workers,
                              uint64_t files_per_rank, double seconds, const MdItemOp& create, MdTally* out,
                              uint64_t* made) {
  const uint64_t start = now_ns();
  const uint64_t deadline = start + std::max<uint64_t>(1, static_cast<uint64_t>(seconds * 1e9));
  uint64_t done = 0;
  Status st = run_claimed_items(stop, workers, 0, files_per_rank, deadline, create, out, &done);
  out->stonewall = MdStonewall{.ran = true,
                               .fired = done < files_per_rank,
                               .items_sum = done,
                               .items_min = done,
                               .items_max = done,
                               .ns = now_ns() - start,
                               .wear_out_to = done};
  // The ranks agree on the most files a rank made (mdtest's MPI_Allreduce with MPI_MAX); -1: this rank
  // failed.
  std::vector<double> counts;
  st.update(comm.all_gather(st.ok() ? static_cast<double>(done) : -1.0, &counts));
  if (st.ok() && std::any_of(counts.begin(), counts.end(), [](double c) { return c < 0; })) {
    st = Status::IoError("metadata: another rank failed in step create");
  }
  *made = done;
  if (!st.ok()) {
    out->ns = now_ns() - start;
    return st;
  }
  const auto most = static_cast<uint64_t>(*std::max_element(counts.begin(), counts.end()));
  out->stonewall.wear_out_to = most;
  st = run_claimed_items(stop, workers, done, most, 0, create, out, made);
  out->ns = now_ns() - start;
  return st;
}

}  // namespace iofab
