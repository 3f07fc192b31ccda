#include "harness/phase/worker_group.h"

#include <latch>
#include <thread>

#include "harness/engines/io_pump.h"

namespace iofab {

Status WorkerRun::first_error() const {
  const Status* interrupted = nullptr;
  for (const auto& s : statuses) {
    if (s.ok()) continue;
    if (s.code() != Status::Code::kInterrupted) return s;
    if (interrupted == nullptr) interrupted = &s;
  }
  return interrupted != nullptr ? *interrupted : Status::Ok();
}

Status run_workers(Comm& comm, unsigned workers, const std::function<Status(unsigned)>& setup,
                   const std::function<Status(unsigned, uint64_t)>& body, WorkerRun* out) {
  out->statuses.assign(workers, Status::Ok());
  std::latch ready(workers);
  std::latch go(1);
  bool proceed = true;
  uint64_t t0 = 0;
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (unsigned i = 0; i < workers; ++i) {
    threads.emplace_back([&, i] {
      Status s = setup(i);
      out->statuses[i] = s;
      ready.count_down();
      go.wait();
      if (proceed && s.ok()) out->statuses[i] = body(i, t0);
    });
  }
  ready.wait();
  for (const auto& s : out->statuses) proceed = proceed && s.ok();
  // Every rank takes part in the barrier even when its setup failed, so no rank waits forever.
  Status barrier = comm.barrier();
  if (!barrier.ok()) proceed = false;
  t0 = now_ns();
  out->t0_ns = t0;
  go.count_down();
  for (auto& t : threads) t.join();
  return barrier;
}

}  // namespace iofab
