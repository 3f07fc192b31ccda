// The checkpoints of one run of the phase: `count` bursts with emulated
// compute (`gap`) between them, each burst a step that every rank writes and
// that commits (commit.h) before it counts.
//
// Sync: the stall is the write and fsync of every shard plus the commit.
// Async: the stall is the copy of every shard into host staging memory; the
// writes drain in the background during the gap, and the step commits when
// the next burst is due (or at the end). A drain still running then is an
// overrun: storage falls behind the checkpoint interval.
//
// Two tiers (tier: two; bursts_tier.cc): the stall is the write and fsync of
// every shard into the local tier plus its local commit; a drain thread per
// rank copies the step to the target while training goes on, and the step
// commits there once every rank's part is durable (or, when a drain overran,
// when the next burst is due, after waiting for it).
#pragma once

#include <cstdint>
#include <vector>

#include "harness/core/status.h"
#include "harness/phase/phase.h"
#include "workloads/checkpoint/commit.h"
#include "workloads/checkpoint/tier_drain.h"
#include "workloads/checkpoint/tier_local.h"
#include "workloads/checkpoint/writer.h"

namespace iofab {

// One committed checkpoint as one rank saw it; times in ns since that
// checkpoint's start, which every rank takes right after the same barrier.
struct LocalCheckpoint {
  uint64_t stall_ns = 0;
  uint64_t write_start_ns = UINT64_MAX;  // first write's start
  uint64_t write_end_ns = 0;             // last fsync's end
  // Sync: the last writer's end without its fsyncs, as DLIO's save (checkpoint_fsync false) ends.
  uint64_t unsynced_end_ns = 0;
  uint64_t drain_ns = 0;                 // async: the longest writer's drain; two tiers: this rank's drain
  // From the burst's start until every file this rank wrote is durable: the stall itself, or, after a
  // save that leaves them unsynced (commit megatron), the stall and the sync after it.
  uint64_t durable_ns = 0;
  uint64_t bytes = 0;
  // now_ns() times, this process only (not on the wire): the burst's start, and the drain's span (async:
  // first writer's drain start to last one's end; two tiers: from the local commit, drain_ns long).
  uint64_t t0_abs_ns = 0;
  uint64_t drain_start_abs_ns = 0;
  uint64_t drain_end_abs_ns = 0;
};

// Collective: every rank runs the same bursts. Not thread-safe; the drain
// threads it starts are joined before it is destroyed.
class CheckpointBursts {
 public:
  // worst collects every failure; wc, writers and tier (two tiers: wc writes through its
  // write_context(); else null) outlive this object.
  CheckpointBursts(PhaseContext& ctx, const WriteContext& wc, std::vector<Writer>& writers, Status* worst,
                   LocalTier* tier = nullptr)
      : ctx_(ctx), wc_(wc), p_(wc.p), writers_(writers), worst_(worst), tier_(tier) {}
  ~CheckpointBursts();
  CheckpointBursts(const CheckpointBursts&) = delete;
  CheckpointBursts& operator=(const CheckpointBursts&) = delete;

  // Checkpoints steps base_step + 1 .. base_step + count; stops at the first
  // one that fails to commit.
  void run(uint64_t base_step);

  const std::vector<LocalCheckpoint>& done() const { return done_; }     // committed, this rank's view
  const std::vector<CommitRecord>& commits() const { return commits_; }  // rank 0
  uint64_t overruns() const { return overruns_; }
  uint64_t last_committed_step() const { return last_step_; }  // 0: none

 private:
  // Every writer's part of step: the write (sync) or the snapshot (async).
  // Returns the burst's start; cp gets the writes' span, *mine their outcome.
  uint64_t burst(uint64_t step, LocalCheckpoint* cp, Status* mine);
  // Sync: commits step inside the stall. False: stop.
  bool commit_now(uint64_t step, uint64_t t0, const Status& mine, LocalCheckpoint cp);
  // After a commit that left the files unsynced (defers_sync): every rank syncs what it wrote, rank 0
  // the commit's files and folders too; agreed on every rank.
  Status make_durable(uint64_t step);
  // Async: agrees that every snapshot succeeded and starts the drains. False: stop.
  bool start_drains(uint64_t step, uint64_t t0, const Status& mine, LocalCheckpoint cp);
  // Async, when the next step is due: notes an overrun, commits the pending step. False: stop.
  bool commit_due();
  // Waits for the drains, then commits the pending step on every rank.
  Status finish_pending(bool overran);
  // Rank 0, after a commit: rotation, and the record for the report.
  void record_commit(CommitRecord rec);
  // In a concurrent group: the checkpoint's burst and drain, for the phases beside it.
  void post_windows(const LocalCheckpoint& cp) const;
  // Two tiers (bursts_tier.cc): commits step locally (the stall's end), agrees that every rank did
  // and starts this rank's drain. False: stop.
  bool commit_local_and_drain(uint64_t step, uint64_t t0, const Status& mine, LocalCheckpoint cp);
  // Two tiers: the gap, in which the step commits on the target once every rank's drain has ended;
  // after the last checkpoint no more than that. False: stop.
  bool idle_and_commit_drained(bool last);

  PhaseContext& ctx_;
  const WriteContext& wc_;
  const CheckpointParams& p_;
  std::vector<Writer>& writers_;
  Status* worst_;
  std::vector<LocalCheckpoint> done_;
  std::vector<CommitRecord> commits_;
  uint64_t overruns_ = 0;
  // Async: the checkpoint that is draining in the background, not yet committed.
  bool pending_ = false;
  uint64_t pending_step_ = 0;
  LocalCheckpoint pending_cp_;
  uint64_t last_step_ = 0;
  LocalTier* tier_ = nullptr;
  TierDrain drain_;  // two tiers: this rank's; declared last, so joined first
};

}  // namespace iofab
