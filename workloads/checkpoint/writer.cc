#include "workloads/checkpoint/writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "harness/core/mem_available.h"
#include "harness/core/units.h"
#include "harness/engines/data_fill.h"
#include "harness/engines/engine_choice.h"
#include "harness/engines/io_pump.h"
#include "workloads/checkpoint/phase_folder.h"
#include "workloads/checkpoint/xxh3.h"

namespace iofab {
namespace {

// The emulated accelerator state an async snapshot copies from is cycled
// through this much memory: enough to stream from RAM, not from cache, without
// doubling the host memory a big shard needs.
constexpr uint64_t kSourceBytes = 64ULL << 20;

uint64_t writer_seed(const CheckpointParams& p, const Writer& wk) {
  return p.seed * 1000003 + static_cast<uint64_t>(wk.rank) * 4099 + wk.worker;
}

Status write_shard_file(const WriteContext& wc, uint64_t step, Writer* wk) {
  const CheckpointParams& p = wc.p;
  const ShardLayout& l = wc.layout;
  StoreFile file;
  Status s = create_shard_file(*wc.ctx.store, wc.ctx.phase_name, step, wk->file, p.direct, &file);
  if (!s.ok()) return s;
  int handle = -1;
  s = wk->engine->add_file(file.fd(), &handle);
  if (!s.ok()) return s;
  StreamingXxh3 hash;
  // Every checkpoint's data differs: the stamp carries the step in the block id.
  BlockFiller stamper(writer_seed(p, *wk) + 17);
  const bool staged = p.async;
  const IoBuffers& bufs = staged ? wk->staging : wk->ring;
  const uint64_t blocks = (l.bytes_of(wk->shard) + p.block_size - 1) / p.block_size;
  const auto slots =
      static_cast<unsigned>(std::min<uint64_t>(p.queue_depth, staged ? blocks : p.queue_depth));
  IoPump pump(*wk->engine, bufs, slots, !staged, &wk->tally.latency, &wk->tally.series, wc.phase_t0,
              &wc.ctx.progress.done_bytes, &wc.ctx.stop);
  uint64_t offset = 0;
  uint64_t block = 0;
  Status committed;
  s = pump.run(
      [&](unsigned, IoRequest& req) {
        if (offset >= l.bytes_of(wk->shard) || !committed.ok()) return false;
        // What is staged goes to the device now, so it works while this block is stamped and hashed.
        committed = wk->engine->commit();
        if (!committed.ok()) return false;
        req.file = handle;
        req.op = IoOp::kWrite;
        req.offset = offset;
        req.len = static_cast<uint32_t>(std::min<uint64_t>(p.block_size, l.bytes_of(wk->shard) - offset));
        if (staged) {
          req.buf = wk->staging.at(block);
          req.buf_index = -1;
        }
        stamper.stamp(req.buf, req.len, (step << 32) | block);
        hash.update(req.buf, req.len);
        offset += req.len;
        ++block;
        return true;
      },
      [](unsigned, const IoRequest&) {});
  s.update(committed);
  wk->bytes = pump.stats().bytes;
  wk->tally.bytes += pump.stats().bytes;
  wk->tally.ios += pump.stats().ios;
  if (s.ok()) s = wk->engine->fsync(handle);
  Status rm = wk->engine->remove_file(handle);
  // A close that fails can lose what the fsync reported done (NFS): it fails the shard.
  if (close(file.release()) != 0 && s.ok()) s = Status::FromErrno("close " + wk->file, errno);
  if (s.ok() && !rm.ok()) s = rm;
  wk->xxh3 = hash.digest();
  return s;
}

}  // namespace

Status check_staging_memory(const std::vector<Writer>& writers, const ShardLayout& l) {
  uint64_t need = 0;
  for (const auto& wk : writers) need += wk.active ? l.bytes_of(wk.shard) : 0;
  const uint64_t avail = mem_available_bytes();
  if (avail != 0 && need > avail / 10 * 9) {
    return Status::IoError("async mode holds a host copy of every shard: this rank needs " +
                           units::format_bytes(static_cast<double>(need)) + " of staging memory and " +
                           units::format_bytes(static_cast<double>(avail)) +
                           " is available; raise scale, use more ranks or mode: sync");
  }
  return Status::Ok();
}

Status setup_writer(const CheckpointParams& p, const PhaseContext& ctx, const ShardLayout& l, Writer* wk) {
  if (!wk->active) return Status::Ok();
  EngineOptions eo;
  eo.queue_depth = p.queue_depth;
  eo.direct = p.direct;
  eo.max_files = 2;  // one shard file at a time, removed after each checkpoint
  Status s = make_phase_engine(ctx, resolve_engine_name(p.engine), eo, &wk->engine);
  if (!s.ok()) return s;
  BlockFiller filler(writer_seed(p, *wk));
  if (!p.async) {
    s = IoBuffers::allocate(p.queue_depth, p.block_size, &wk->ring);
    if (!s.ok()) return s;
    for (size_t i = 0; i < wk->ring.count(); ++i) filler.fill(wk->ring.at(i), wk->ring.size());
    return wk->engine->register_buffers(wk->ring.iovecs());
  }
  const uint64_t blocks = (l.bytes_of(wk->shard) + p.block_size - 1) / p.block_size;
  s = IoBuffers::allocate(blocks, p.block_size, &wk->staging);
  if (!s.ok()) return Status::IoError(s.message() + " (async mode holds a host copy of each shard)");
  const uint64_t src_blocks = std::clamp<uint64_t>(kSourceBytes / p.block_size, 1, blocks);
  s = IoBuffers::allocate(src_blocks, p.block_size, &wk->source);
  if (!s.ok()) return s;
  for (size_t i = 0; i < wk->source.count(); ++i) filler.fill(wk->source.at(i), wk->source.size());
  return Status::Ok();
}

void snapshot_shard(const CheckpointParams& p, const ShardLayout& l, Writer* wk) {
  wk->start_ns = now_ns();
  uint64_t off = 0;
  for (size_t b = 0; off < l.bytes_of(wk->shard); ++b) {
    const size_t len = static_cast<size_t>(std::min<uint64_t>(p.block_size, l.bytes_of(wk->shard) - off));
    std::memcpy(wk->staging.at(b), wk->source.at(b % wk->source.count()), len);
    off += len;
  }
  wk->end_ns = now_ns();
}

Status write_shard(const WriteContext& wc, uint64_t step, Writer* wk) {
  wk->bytes = 0;
  wk->start_ns = now_ns();
  Status s = write_shard_file(wc, step, wk);
  wk->end_ns = now_ns();
  wk->tally.span(wk->start_ns - wc.phase_t0, wk->end_ns - wc.phase_t0);
  if (!s.ok() && s.code() != Status::Code::kInterrupted)
    return Status::IoError(wk->file + ": " + s.message());
  return s;
}

void start_drain(const WriteContext& wc, uint64_t step, Writer* wk) {
  wk->drained.store(false);
  // The drain runs while the job computes; its span is measured from the snapshot's end.
  wk->drain = std::thread([&wc, step, wk] {
    wk->status = write_shard(wc, step, wk);
    wk->drained.store(true);
  });
}

}  // namespace iofab
