#include "workloads/collectives/step_runner.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "workloads/collectives/agreement.h"

namespace iofab {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
}  // namespace

Status StepRunner::prepare() {
  uint64_t send = 0, recv = 0;
  schedule_buffer_bytes(schedule_, coll_.size(), &send, &recv);
  Status s = send_.allocate(coll_, send);
  return s.ok() ? recv_.allocate(coll_, recv) : s;
}

Status StepRunner::issue(const StepTask& t) {
  switch (t.kind) {
    case StepTaskKind::kAllReduce:
      return coll_.all_reduce(send_.get(), recv_.get(), t.count, t.dtype, RedOp::kSum);
    case StepTaskKind::kAllGather:
      return coll_.all_gather(send_.get(), recv_.get(), t.count, t.dtype);
    case StepTaskKind::kReduceScatter:
      return coll_.reduce_scatter(send_.get(), recv_.get(), t.count, t.dtype, RedOp::kSum);
    default:
      return Status::Internal("a compute task in the comm lane");
  }
}

Status StepRunner::run(StepTiming* out) {
  std::mutex mu;
  std::condition_variable cv;
  size_t compute_done = 0, comm_done = 0;
  bool abort = false;
  double compute_busy = 0;
  const auto ready = [&](int after, const size_t& done) {
    return after < 0 || static_cast<size_t>(after) < done;
  };

  const Clock::time_point t0 = Clock::now();
  std::thread compute([&] {
    for (const StepTask& t : schedule_.compute) {
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return abort || ready(t.after, comm_done); });
        if (abort) return;
      }
      const Clock::time_point start = Clock::now();
      if (t.seconds > 0) {
        std::this_thread::sleep_until(
            start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(t.seconds)));
      }
      const double took = seconds_since(start);
      std::lock_guard lock(mu);
      compute_busy += took;
      ++compute_done;
      cv.notify_all();
    }
  });

  Status s;
  double comm_busy = 0;
  for (const StepTask& t : schedule_.comm) {
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return ready(t.after, compute_done); });
    }
    const Clock::time_point start = Clock::now();
    s = issue(t);
    if (s.ok()) s = coll_.synchronize();
    comm_busy += seconds_since(start);
    std::lock_guard lock(mu);
    if (!s.ok()) {
      abort = true;
      cv.notify_all();
      break;
    }
    ++comm_done;
    cv.notify_all();
  }
  compute.join();
  out->step_s = seconds_since(t0);
  out->compute_s = compute_busy;
  out->comm_s = comm_busy;
  return s;
}

Status run_steps(Collectives& coll, Comm& comm, const StepSchedule& schedule, int warmup, int steps,
                 const std::atomic<bool>& stop, std::vector<StepTiming>* out) {
  out->clear();
  StepRunner runner(coll, schedule);
  Status s = runner.prepare();
  for (int i = 0; i < warmup + steps; ++i) {
    s = agree_to_continue(comm, s, stop);
    if (!s.ok()) return s;
    s = comm.barrier();
    if (!s.ok()) return s;
    StepTiming t;
    s = runner.run(&t);
    if (s.ok() && i >= warmup) out->push_back(t);
  }
  return agree_to_continue(comm, s, stop);
}

}  // namespace iofab
