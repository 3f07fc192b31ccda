#include "workloads/checkpoint/bursts.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "harness/comm/agree.h"
#include "harness/engines/io_pump.h"
#include "harness/phase/idle.h"
#include "harness/phase/worker_group.h"
#include "workloads/checkpoint/phase_folder.h"

namespace iofab {

CheckpointBursts::~CheckpointBursts() {
  for (auto& wk : writers_) {
    if (wk.drain.joinable()) wk.drain.join();
  }
}

void CheckpointBursts::run(uint64_t base_step) {
  for (unsigned k = 0; k < p_.count; ++k) {
    const uint64_t step = base_step + 1 + k;
    if ((p_.async || tier_ != nullptr) && pending_ && !commit_due()) break;
    LocalCheckpoint cp;
    Status mine;
    const uint64_t t0 = burst(step, &cp, &mine);
    if (tier_ != nullptr) {
      if (!commit_local_and_drain(step, t0, mine, cp) || !idle_and_commit_drained(k + 1 == p_.count)) break;
      continue;
    }
    if (!p_.async) {
      if (!commit_now(step, t0, mine, cp)) break;
      if (k + 1 < p_.count) idle_for(p_.gap_s, ctx_.stop);
      continue;
    }
    if (!start_drains(step, t0, mine, cp)) break;
    idle_for(p_.gap_s, ctx_.stop);
  }
  if (pending_) {
    Status c = finish_pending(false);
    keep_worst(worst_, c);
  }
}

uint64_t CheckpointBursts::burst(uint64_t step, LocalCheckpoint* cp, Status* mine) {
  for (auto& wk : writers_) wk.status = Status::Ok();
  WorkerRun burst;
  Status bb = run_workers(
      ctx_.comm, p_.workers, [](unsigned) { return Status::Ok(); },
      [&](unsigned w, uint64_t) {
        Writer& wk = writers_[w];
        if (!wk.active) return Status::Ok();
        if (ctx_.stop.load()) return Status::Interrupted();
        if (!p_.async) return write_shard(wc_, step, &wk);
        snapshot_shard(p_, wc_.layout, step, &wk);
        return Status::Ok();
      },
      &burst);
  const uint64_t t0 = burst.t0_ns;
  cp->t0_abs_ns = t0;
  *mine = bb.ok() ? burst.first_error() : bb;
  for (const auto& wk : writers_) {
    if (!wk.active || wk.end_ns < t0) continue;
    cp->write_start_ns = std::min(cp->write_start_ns, wk.start_ns - t0);
    cp->write_end_ns = std::max(cp->write_end_ns, wk.end_ns - t0);
    if (p_.async) continue;  // a snapshot has no fsync; its drain's sync_ns is the drain thread's
    const uint64_t span = wk.end_ns - t0;
    cp->unsynced_end_ns = std::max(cp->unsynced_end_ns, span - std::min(wk.sync_ns, span));
  }
  return t0;
}

bool CheckpointBursts::commit_now(uint64_t step, uint64_t t0, const Status& mine, LocalCheckpoint cp) {
  for (const auto& wk : writers_) cp.bytes += wk.active ? wk.bytes : 0;
  CommitRecord rec;
  Status c = collect_and_commit(ctx_, p_, step, wc_.layout, writers_, mine, &rec);
  cp.stall_ns = now_ns() - t0;
  // Training goes on here under Megatron's save; the time to durable is measured apart from the stall.
  const bool deferred = c.ok() && defers_sync(p_, *ctx_.store);
  if (deferred) c = make_durable(step);
  cp.durable_ns = deferred ? now_ns() - t0 : cp.stall_ns;
  post_windows(cp);
  if (!c.ok()) {
    keep_worst(worst_, c);
    return false;
  }
  done_.push_back(cp);
  last_step_ = step;
  record_commit(rec);
  return true;
}

Status CheckpointBursts::make_durable(uint64_t step) {
  std::vector<std::string> names;
  for (const auto& wk : writers_) {
    if (!wk.active) continue;
    for (const ShardResult& r : wk.written) names.push_back(wc_.layout.name_of(r.shard));
  }
  const Status mine = make_step_durable(*ctx_.store, ctx_.phase_name, step_folder_name(step, p_.commit),
                                        names, ctx_.comm.rank() == 0);
  return agree(ctx_.comm, mine);
}

bool CheckpointBursts::start_drains(uint64_t step, uint64_t t0, const Status& mine, LocalCheckpoint cp) {
  // Async: the stall ends when every writer's copy is in host memory.
  cp.stall_ns = cp.write_end_ns == 0 ? now_ns() - t0 : cp.write_end_ns;
  bool all_ok = false;
  Status a = agree_all_ok(ctx_.comm, mine, &all_ok);
  if (!a.ok() || !all_ok) {
    keep_worst(worst_, mine.ok() ? (a.ok() ? Status::IoError("another rank's snapshot failed") : a) : mine);
    return false;
  }
  pending_ = true;
  pending_step_ = step;
  pending_cp_ = cp;
  for (auto& wk : writers_) {
    if (wk.active) start_drain(wc_, step, &wk);
  }
  return true;
}

bool CheckpointBursts::commit_due() {
  // A new checkpoint is due: the previous one must have drained by now.
  bool drained = drain_.done();
  for (const auto& wk : writers_) drained = drained && wk.drained.load();
  bool all_drained = false;
  Status a = agree_all_true(ctx_.comm, drained, &all_drained);
  // A drain cut short by Ctrl-C is an interruption, not storage falling behind.
  const bool overran = !ctx_.stop.load() && a.ok() && !all_drained;
  if (overran) ++overruns_;
  Status c = a.ok() ? finish_pending(overran) : a;
  if (!c.ok()) {
    keep_worst(worst_, c);
    return false;
  }
  return true;
}

Status CheckpointBursts::finish_pending(bool overran) {
  Status s;
  for (auto& wk : writers_) {
    if (wk.drain.joinable()) wk.drain.join();
    if (wk.active) {
      keep_worst(&s, wk.status);
      pending_cp_.bytes += wk.bytes;
      if (tier_ == nullptr) {
        pending_cp_.drain_ns = std::max(pending_cp_.drain_ns, wk.end_ns - wk.start_ns);
        if (pending_cp_.drain_start_abs_ns == 0 || wk.start_ns < pending_cp_.drain_start_abs_ns) {
          pending_cp_.drain_start_abs_ns = wk.start_ns;
        }
        pending_cp_.drain_end_abs_ns = std::max(pending_cp_.drain_end_abs_ns, wk.end_ns);
      }
    }
  }
  if (tier_ != nullptr) {
    uint64_t drained_bytes = 0;
    keep_worst(&s, drain_.wait(&pending_cp_.drain_ns, &drained_bytes));
    pending_cp_.drain_start_abs_ns = pending_cp_.t0_abs_ns + pending_cp_.stall_ns;
    pending_cp_.drain_end_abs_ns = pending_cp_.drain_start_abs_ns + pending_cp_.drain_ns;
  }
  post_windows(pending_cp_);
  CommitRecord rec;
  rec.overran = overran;
  Status c = collect_and_commit(ctx_, p_, pending_step_, wc_.layout, writers_, s, &rec);
  pending_ = false;
  if (c.ok()) {
    done_.push_back(pending_cp_);
    last_step_ = pending_step_;
    record_commit(rec);
  }
  return c;
}

void CheckpointBursts::post_windows(const LocalCheckpoint& cp) const {
  if (ctx_.windows == nullptr || cp.t0_abs_ns == 0) return;
  ctx_.windows->publish("burst", cp.t0_abs_ns, cp.t0_abs_ns + cp.stall_ns);
  if (cp.drain_end_abs_ns > cp.drain_start_abs_ns) {
    ctx_.windows->publish("drain", cp.drain_start_abs_ns, cp.drain_end_abs_ns);
  }
}

void CheckpointBursts::record_commit(CommitRecord rec) {
  if (ctx_.comm.rank() != 0) return;
  // Reported, never a reason to stop: the checkpoints themselves are whole, and only rank 0 knows.
  const uint64_t t0 = now_ns();
  keep_worst(worst_, rotate_after_commit(ctx_, p_.keep, &rec));
  // Removing the checkpoints beyond keep is the checkpoint's I/O too: a window of its own for the phases beside.
  if (ctx_.windows != nullptr && rec.deleted > 0) ctx_.windows->publish("delete", t0, now_ns());
  commits_.push_back(rec);
}

}  // namespace iofab
