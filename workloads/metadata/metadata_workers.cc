#include "workloads/metadata/metadata_workers.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "harness/engines/io_driver.h"

namespace iofab {
namespace {

// What one worker does: its items in some order, counted into its own tally, its outcome in *status.
using WorkerBody = std::function<void(unsigned worker, MdTally* tally, Status* status)>;

// Item i through op, timed into t; false (and *status set, the error counted) when it failed.
bool run_item(const MdItemOp& op, unsigned w, uint64_t i, MdTally* t, Status* status) {
  const uint64_t t0 = now_ns();
  Status s = op(w, i);
  t->latency.record(now_ns() - t0);
  if (!s.ok()) {
    t->count_error(s);
    *status = s;
    return false;
  }
  ++t->ops;
  return true;
}

bool stopped(const std::atomic<bool>& stop, Status* status) {
  if (!stop.load(std::memory_order_relaxed)) return false;
  *status = Status::Interrupted();
  return true;
}

// body on `workers` threads (on the caller's alone for one), each with its own tally, merged into out;
// the worst of the workers' outcomes.
Status run_workers(unsigned workers, const WorkerBody& body, MdTally* out) {
  std::vector<MdTally> tallies(workers);
  std::vector<Status> statuses(workers);
  if (workers <= 1) {
    body(0, &tallies[0], &statuses[0]);
  } else {
    std::vector<std::thread> threads;
    for (unsigned w = 0; w < workers; ++w) threads.emplace_back(body, w, &tallies[w], &statuses[w]);
    for (auto& t : threads) t.join();
  }
  Status worst;
  for (unsigned w = 0; w < workers; ++w) {
    out->merge(tallies[w]);
    keep_worst(&worst, statuses[w]);
  }
  return worst;
}

}  // namespace

Status run_split_items(const std::atomic<bool>& stop, unsigned workers, uint64_t n, const MdItemOp& op,
                       MdTally* out) {
  const uint64_t start = now_ns();
  Status st = run_workers(
      workers,
      [&](unsigned w, MdTally* t, Status* status) {
        for (uint64_t i = n * w / workers, last = n * (w + 1) / workers; i < last; ++i) {
          if (stopped(stop, status) || !run_item(op, w, i, t, status)) return;
        }
      },
      out);
  out->ns += now_ns() - start;
  return st;
}

Status run_claimed_items(const std::atomic<bool>& stop, unsigned workers, uint64_t first, uint64_t last,
                         uint64_t deadline_ns, const MdItemOp& op, MdTally* out, uint64_t* next) {
  std::atomic<uint64_t> claim{first};
  Status st = run_workers(
      workers,
      [&](unsigned w, MdTally* t, Status* status) {
        while (!stopped(stop, status)) {
          if (deadline_ns != 0 && now_ns() >= deadline_ns) return;
          const uint64_t i = claim.fetch_add(1);
          if (i >= last || !run_item(op, w, i, t, status)) return;
        }
      },
      out);
  *next = std::min(claim.load(), std::max(first, last));
  return st;
}

}  // namespace iofab
