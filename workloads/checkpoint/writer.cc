#include "workloads/checkpoint/writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "harness/core/mem_available.h"
#include "harness/core/mix.h"
#include "harness/core/units.h"
#include "harness/engines/data_fill.h"
#include "harness/engines/engine_choice.h"
#include "harness/engines/fill_ahead.h"
#include "harness/engines/io_pump.h"
#include "workloads/checkpoint/phase_folder.h"
#include "workloads/checkpoint/tensor_content.h"
#include "workloads/checkpoint/xxh3.h"

namespace iofab {
namespace {

uint64_t writer_seed(const CheckpointParams& p, const Writer& wk) {
  return worker_data_seed(p.seed, static_cast<uint64_t>(wk.rank), wk.worker);
}

uint64_t blocks_of(uint64_t bytes, uint64_t block_size) { return (bytes + block_size - 1) / block_size; }

// Bytes [offset, offset + len) of file f at step: its tensors' content, zeros between and after them.
void fill_from_records(const PlannedFile& f, uint64_t seed, uint64_t step, uint64_t offset,
                       unsigned char* buf, size_t len, const Reducibility& reduce) {
  const uint64_t end = offset + len;
  auto it = std::upper_bound(f.records.begin(), f.records.end(), offset,
                             [](uint64_t off, const FileRecord& r) { return off < r.file_offset + r.bytes; });
  uint64_t at = offset;
  for (; it != f.records.end() && it->file_offset < end; ++it) {
    if (it->file_offset > at) {
      std::memset(buf + (at - offset), 0, it->file_offset - at);
      at = it->file_offset;
    }
    const uint64_t stop = std::min(end, it->file_offset + it->bytes);
    fill_tensor_bytes(seed, step, it->key, it->tensor_offset + (at - it->file_offset), buf + (at - offset),
                      stop - at, reduce, it->file_offset - it->tensor_offset);
    at = stop;
  }
  if (at < end) std::memset(buf + (at - offset), 0, end - at);
}

// Block bytes [offset, offset + len) of shard at step (offset: a multiple of the block size): its tensors'
// bytes where the layout places tensors; else the default data, a stream per (writer, shard, step) so that
// every checkpoint's bytes differ from every other's; or with compressibility or dedup, block
// offset / block_size of the shard's stream of that step.
void fill_shard_block(const CheckpointParams& p, const ShardLayout& l, const Writer& wk, uint64_t shard,
                      uint64_t step, uint64_t offset, unsigned char* buf, size_t len) {
  if (!l.files.empty()) {
    fill_from_records(l.files[shard], p.seed, step, offset, buf, len, p.reduce);
  } else if (p.reduce.any()) {
    ReducibleFiller(writer_seed(p, wk) + shard, p.reduce).fill(buf, len, step, offset / p.block_size);
  } else {
    DataStream(data_key(writer_seed(p, wk), shard, step)).fill(buf, len, offset);
  }
}

// The blocks of shard (open as engine file handle) at step, hashed in order into *hash; first_block: where
// its blocks start in the staging copy. Adds what it wrote to wk's totals; returns the bytes written.
Status write_shard_blocks(const WriteContext& wc, uint64_t step, Writer* wk, uint64_t shard, int handle,
                          uint64_t first_block, StreamingXxh3* hash, uint64_t* written) {
  const CheckpointParams& p = wc.p;
  const uint64_t shard_bytes = wc.layout.bytes_of(shard);
  const bool staged = p.async;
  const IoBuffers& bufs = staged ? wk->staging : wk->ring;
  const uint64_t blocks = blocks_of(shard_bytes, p.block_size);
  // An empty file (a dcp rank with nothing to write) is still created and fsynced: one idle slot.
  const auto slots = static_cast<unsigned>(
      std::min<uint64_t>(p.queue_depth, staged ? std::max<uint64_t>(blocks, 1) : p.queue_depth));
  IoPump pump(*wk->engine, bufs,
              {.slots = slots,
               .fixed_buffers = !staged,
               .latency = &wk->tally.latency,
               .series = &wk->tally.series,
               .t0_ns = wc.phase_t0,
               .progress = &wc.ctx.progress.done_bytes,
               .stop = &wc.ctx.stop});
  const auto len_of = [&](uint64_t b) {
    return static_cast<uint32_t>(std::min<uint64_t>(p.block_size, shard_bytes - b * p.block_size));
  };
  // Made and hashed in block order, here or (a synchronous engine's writer) beside the write before.
  const FillAhead::Make make = [&](uint64_t b, void* buf) {
    fill_shard_block(p, wc.layout, *wk, shard, step, b * p.block_size, static_cast<unsigned char*>(buf),
                     len_of(b));
    hash->update(buf, len_of(b));
  };
  std::optional<FillAhead> ahead;
  if (!staged && wk->beside) ahead.emplace(wk->ring, *wk->beside, make);
  uint64_t block = 0;
  Status committed;
  Status s = pump.run(
      [&](unsigned, IoRequest& req) {
        if (block >= blocks || !committed.ok()) return false;
        // What is staged goes to the device now, so it works while this block is made and hashed.
        committed = wk->engine->commit();
        if (!committed.ok()) return false;
        req.file = handle;
        req.op = IoOp::kWrite;
        req.offset = block * p.block_size;
        req.len = len_of(block);
        if (staged) {  // made by the snapshot
          req.buf = wk->staging.at(first_block + block);
          req.buf_index = -1;
          hash->update(req.buf, req.len);
        } else if (ahead) {
          ahead->take(block, block + 1 < blocks, req);
        } else {
          make(block, req.buf);
        }
        ++block;
        return true;
      },
      [](unsigned, const IoRequest&) {});
  if (ahead) ahead->wait();  // the hash is whole (a block made ahead of a failed write is in it: unused)
  s.update(committed);
  *written = pump.stats().bytes;
  wk->bytes += pump.stats().bytes;
  wk->tally.bytes += pump.stats().bytes;
  wk->tally.ios += pump.stats().ios;
  return s;
}

// Writes shard number j of wk's shards; first_block: where its blocks start in the staging copy.
Status write_shard_file(const WriteContext& wc, uint64_t step, Writer* wk, size_t j, uint64_t first_block) {
  const CheckpointParams& p = wc.p;
  const ShardLayout& l = wc.layout;
  const uint64_t shard = wk->shards[j];
  StoreFile file;
  Status s = create_shard_file(*wc.ctx.store, wc.ctx.phase_name, step_folder_name(step, p.commit),
                               l.name_of(shard), p.direct, writes_in_place(p), &file);
  if (!s.ok()) return s;
  int handle = -1;
  s = wk->engine->add_store_file(file, &handle);
  if (!s.ok()) return s;
  StreamingXxh3 hash;
  uint64_t written = 0;
  if (p.serialize && !l.files.empty()) {
    // torch.save's pickling and framing per record and its crc32 per byte, beyond making the bytes.
    const PlannedFile& f = l.files[shard];
    uint64_t record_bytes = 0;
    for (const FileRecord& r : f.records) record_bytes += r.bytes;
    spin_cpu(p.serialize_costs.spin().seconds(static_cast<double>(f.records.size()),
                                              static_cast<double>(record_bytes)));
  }
  s = write_shard_blocks(wc, step, wk, shard, handle, first_block, &hash, &written);
  // Megatron's torch.save closes its file unsynced: make_step_durable syncs it after the stall.
  if (s.ok() && !defers_sync(p, *wc.ctx.store)) {
    const uint64_t f0 = now_ns();
    s = wk->engine->fsync(handle);
    wk->sync_ns += now_ns() - f0;
  }
  Status rm = wk->engine->remove_file(handle);
  // A close that fails can lose what the fsync reported done (NFS): it fails the shard. (An object has
  // no descriptor: its fsync was the commit.)
  if (file.fd() >= 0 && close(file.release()) != 0 && s.ok()) {
    s = Status::FromErrno("close " + l.name_of(shard), errno);
  }
  if (s.ok() && !rm.ok()) s = rm;
  wk->written.push_back({shard, written, hash.digest()});
  return s;
}

}  // namespace

uint64_t writer_bytes(const Writer& wk, const ShardLayout& l) {
  uint64_t sum = 0;
  for (uint64_t s : wk.shards) sum += l.bytes_of(s);
  return sum;
}

Status check_staging_memory(const std::vector<Writer>& writers, const ShardLayout& l) {
  uint64_t need = 0;
  for (const auto& wk : writers) need += wk.active ? writer_bytes(wk, l) : 0;
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
  std::string engine;
  Status s = engine_for_store(*ctx.store, p.engine, &engine);
  if (!s.ok()) return s;
  s = make_phase_engine(ctx, engine, eo, &wk->engine);
  if (!s.ok()) return s;
  if (!p.async) {
    // A synchronous engine writes nothing while its thread makes a block: the next is made beside the
    // write (FillAhead), two buffers taking turns whatever the queue depth.
    const EngineCaps caps = wk->engine->caps();
    if (caps.sync && caps.moves_data && !wk->beside) wk->beside = std::make_unique<BesideThread>();
    s = IoBuffers::allocate(std::max<uint64_t>(p.queue_depth, wk->beside ? 2 : 1), p.block_size, &wk->ring);
    if (!s.ok()) return s;
    return wk->engine->register_buffers(wk->ring.iovecs());
  }
  uint64_t blocks = 0;
  for (uint64_t shard : wk->shards) blocks += blocks_of(l.bytes_of(shard), p.block_size);
  s = IoBuffers::allocate(std::max<uint64_t>(blocks, 1), p.block_size, &wk->staging);
  if (!s.ok()) return Status::IoError(s.message() + " (async mode holds a host copy of each shard)");
  return Status::Ok();
}

void snapshot_shard(const CheckpointParams& p, const ShardLayout& l, uint64_t step, Writer* wk) {
  wk->start_ns = now_ns();
  size_t b = 0;
  for (uint64_t shard : wk->shards) {
    const uint64_t bytes = l.bytes_of(shard);
    for (uint64_t off = 0; off < bytes; off += p.block_size, ++b) {
      const size_t len = static_cast<size_t>(std::min<uint64_t>(p.block_size, bytes - off));
      auto* dst = static_cast<unsigned char*>(wk->staging.at(b));
      // The shard's own bytes, made at about memcpy speed (data_fill.h): the copy off the accelerator.
      fill_shard_block(p, l, *wk, shard, step, off, dst, len);
    }
  }
  wk->end_ns = now_ns();
}

Status write_shard(const WriteContext& wc, uint64_t step, Writer* wk) {
  wk->bytes = 0;
  wk->written.clear();
  wk->sync_ns = 0;
  wk->start_ns = now_ns();
  Status s;
  uint64_t first_block = 0;
  for (size_t j = 0; j < wk->shards.size() && s.ok(); ++j) {
    s = write_shard_file(wc, step, wk, j, first_block);
    if (!s.ok() && s.code() != Status::Code::kInterrupted)
      s = Status::IoError(wc.layout.name_of(wk->shards[j]) + ": " + s.message());
    first_block += blocks_of(wc.layout.bytes_of(wk->shards[j]), wc.p.block_size);
  }
  wk->end_ns = now_ns();
  wk->tally.span(wk->start_ns - wc.phase_t0, wk->end_ns - wc.phase_t0);
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
