// How a checkpoint's bytes get out: each writer (one worker of one rank)
// writes its shard of a step through its own Engine into step-N.tmp/ and
// fsyncs it, hashing every block as it goes (the manifest's xxh3).
//
// Sync mode writes from a small ring of blocks, stamped per step so every
// checkpoint's data differs. Async mode first copies the whole shard from
// the emulated accelerator state into host staging memory (the stall, as
// torch.distributed.checkpoint's async_save copies to pinned memory), then
// a drain thread writes the staging copy while training goes on.
//
// Thread-safety: one Writer is used by one thread at a time (its worker, or
// its drain thread once start_drain ran until the drain is joined).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "harness/core/status.h"
#include "harness/engines/beside_thread.h"
#include "harness/engines/engine.h"
#include "harness/engines/io_buffers.h"
#include "harness/phase/phase.h"
#include "harness/stats/io_tally.h"
#include "workloads/checkpoint/params.h"
#include "workloads/checkpoint/shard_layout.h"

namespace iofab {

// One shard file a writer wrote in the checkpoint in progress.
struct ShardResult {
  uint64_t shard = 0;
  uint64_t bytes = 0;
  uint64_t xxh3 = 0;
};

struct Writer {
  int rank = 0;
  unsigned worker = 0;
  bool active = false;          // writer_fraction < 1 leaves some workers idle
  std::vector<uint64_t> shards;  // written one after the other (placement.h)
  std::unique_ptr<Engine> engine;
  IoBuffers ring;                        // sync: queue_depth blocks (2 at least beside a synchronous engine)
  std::unique_ptr<BesideThread> beside;  // a synchronous engine's: makes the next block (FillAhead)
  IoBuffers staging;  // async: the host copy of every shard, one buffer per block
  IoTally tally;
  // The checkpoint in progress, in ns of CLOCK_MONOTONIC.
  Status status;
  std::vector<ShardResult> written;
  uint64_t bytes = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t sync_ns = 0;  // sync: time in the files' fsyncs, which DLIO's save leaves out (mlperf_figures.h)
  std::thread drain;
  std::atomic<bool> drained{true};
};

// What every write of one run of the phase shares; it outlives the drains.
struct WriteContext {
  const CheckpointParams& p;
  const PhaseContext& ctx;
  const ShardLayout& layout;  // the shards go below ctx.phase_name in ctx.store
  uint64_t phase_t0 = 0;      // series and spans count from here
};

// The bytes wk writes a checkpoint, all its shards.
uint64_t writer_bytes(const Writer& wk, const ShardLayout& l);
// Async mode holds a host copy of every shard: fails when this rank's
// active writers need more than 90% of the memory available.
Status check_staging_memory(const std::vector<Writer>& writers, const ShardLayout& l);
// Untimed: the engine, and the ring (sync) or the staging buffers (async).
// An inactive writer needs nothing.
Status setup_writer(const CheckpointParams& p, const PhaseContext& ctx, const ShardLayout& l, Writer* wk);
// Async stall: the copy of the shards from accelerator state to host staging, timed.
void snapshot_shard(const CheckpointParams& p, const ShardLayout& l, uint64_t step, Writer* wk);
// Writes wk's shards of step into phase/step-N.tmp/ (step-N/ for dcp) and fsyncs each, from the
// ring (sync) or the staging copy (async); sets wk's written, bytes and span.
Status write_shard(const WriteContext& wc, uint64_t step, Writer* wk);
// Async: write_shard of step on wk's drain thread; wk->status holds its
// outcome and wk->drained turns true when it ends.
void start_drain(const WriteContext& wc, uint64_t step, Writer* wk);

}  // namespace iofab
