// CheckpointBursts' two-tier steps (bursts.h): the local commit that ends
// the stall, and the gap in which the drain runs and the step commits on the
// target.
#include <algorithm>
#include <chrono>
#include <thread>

#include "harness/comm/agree.h"
#include "harness/engines/io_driver.h"
#include "workloads/checkpoint/bursts.h"

namespace iofab {
namespace {

// Emulated compute until deadline (ns of now_ns()), waking early on stop, or when the drain ends if
// wake_on_drain.
void idle_until(uint64_t deadline, const std::atomic<bool>& stop, const TierDrain* wake_on_drain) {
  while (!stop.load(std::memory_order_relaxed)) {
    const uint64_t now = now_ns();
    if (now >= deadline || (wake_on_drain != nullptr && wake_on_drain->done())) break;
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<uint64_t>(deadline - now, 5'000'000)));
  }
}

}  // namespace

bool CheckpointBursts::commit_local_and_drain(uint64_t step, uint64_t t0, const Status& mine,
                                              LocalCheckpoint cp) {
  Status local = mine.ok() ? tier_->commit(p_, wc_.layout, step, writers_) : mine;
  // The stall: every shard written and fsynced into the local tier, and the step committed there.
  cp.stall_ns = now_ns() - t0;
  bool all_ok = false;
  Status a = agree_all_ok(ctx_.comm, local, &all_ok);
  if (!a.ok() || !all_ok) {
    keep_worst(worst_, !local.ok() ? local
                       : !a.ok()   ? a
                                   : Status::IoError("another rank's local checkpoint failed"));
    return false;
  }
  // The previous step has drained (the burst waited for it): the local tier keeps only this one. A
  // failed removal is reported, never a reason to stop: the checkpoints themselves are whole.
  keep_worst(worst_, tier_->rotate());
  pending_ = true;
  pending_step_ = step;
  pending_cp_ = cp;
  drain_.start(DrainSpec{.local = &tier_->store(),
                         .local_folder = tier_->folder(),
                         .shared = ctx_.store,
                         .shared_folder = ctx_.phase_name,
                         .step = step,
                         .layout = p_.layout,
                         .block_size = p_.block_size,
                         .direct = p_.direct,
                         .stop = &ctx_.stop});
  return true;
}

bool CheckpointBursts::idle_and_commit_drained(bool last) {
  const uint64_t gap_end = now_ns() + static_cast<uint64_t>(p_.gap_s * 1e9);
  // Until this rank's part is durable on the target, or the gap is over...
  idle_until(gap_end, ctx_.stop, &drain_);
  // ...then every rank says whether its part is: one collective per checkpoint, on this thread, so
  // no collective ever runs beside the drains.
  bool all_drained = false;
  Status a = agree_all_true(ctx_.comm, drain_.done(), &all_drained);
  if (!a.ok()) {
    keep_worst(worst_, a);
    return false;
  }
  if (all_drained) {
    // Every part is durable: rank 0 commits on the target now, during the gap, as training goes on.
    Status c = finish_pending(false);
    if (!c.ok()) {
      keep_worst(worst_, c);
      return false;
    }
  }
  // Else the step commits when the next one is due (commit_due: an overrun) or at the end. Nothing is
  // due after the last one: the phase ends as soon as it has committed.
  if (!last) idle_until(gap_end, ctx_.stop, nullptr);
  return true;
}

}  // namespace iofab
