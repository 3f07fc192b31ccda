#include "workloads/restore/slice_reader.h"

#include <algorithm>
#include <vector>

#include "harness/engines/io_pump.h"
#include "workloads/checkpoint/shard_layout.h"
#include "workloads/checkpoint/tensor_content.h"

namespace iofab {
namespace {

// What a ring slot's read holds: the slice's bytes start skip bytes into the buffer.
struct SlotRead {
  uint64_t key = 0;
  uint64_t tensor_offset = 0;
  uint64_t file_phase = 0;  // the record's file offset - its tensor offset (tensor_content.h)
  uint32_t skip = 0;
  uint32_t want = 0;
};

// Reads the slices [first, last) of rd, all of one shard.
Status read_file_slices(const RestoreParams& p, const PhaseContext& ctx, const StepFolder& step,
                        const Manifest& m, uint64_t t0, size_t first, size_t last, Reader* rd) {
  const ShardEntry& e = m.shards[rd->slices[first].shard];
  StoreFile file;
  Status s = open_shard(step, e.name, p.direct, &file);
  if (!s.ok()) {
    if (p.direct && s.message().find("Invalid argument") != std::string::npos) {
      return Status::IoError(s.message() + " (this filesystem does not support O_DIRECT; set direct: false)");
    }
    rd->bad.push_back({e.name, s.message(), true});
    return Status::Ok();
  }
  int handle = -1;
  s = rd->engine->add_store_file(file, &handle);
  if (!s.ok()) return s;
  const bool verify = rd->engine->caps().moves_data;
  std::vector<SlotRead> slots(rd->ring.count());
  IoPump pump(*rd->engine, rd->ring,
              {.slots = std::min<unsigned>(p.queue_depth, static_cast<unsigned>(rd->ring.count())),
               .fixed_buffers = true,
               .latency = &rd->tally.latency,
               .series = &rd->tally.series,
               .t0_ns = t0,
               .progress = &ctx.progress.done_bytes,
               .stop = &ctx.stop});
  size_t i = first;
  uint64_t pos = rd->slices[first].file_offset;
  std::string corrupt;
  s = pump.run(
      [&](unsigned slot, IoRequest& req) {
        while (i < last && pos >= rd->slices[i].file_offset + rd->slices[i].bytes) {
          if (++i < last) pos = rd->slices[i].file_offset;
        }
        if (i >= last) return false;
        const SliceRead& sr = rd->slices[i];
        const uint64_t end = sr.file_offset + sr.bytes;
        uint64_t begin = pos;
        uint64_t piece = std::min<uint64_t>(p.block_size, end - pos);
        if (p.direct) {
          // O_DIRECT reads whole 4 KiB units: widen the block, keep it within the buffer.
          begin = pos / kShardAlign * kShardAlign;
          piece = std::min<uint64_t>(piece, p.block_size - (pos - begin));
        }
        const uint64_t stop =
            p.direct ? (pos + piece + kShardAlign - 1) / kShardAlign * kShardAlign : pos + piece;
        slots[slot] = {sr.key, sr.tensor_offset + (pos - sr.file_offset), sr.file_offset - sr.tensor_offset,
                       static_cast<uint32_t>(pos - begin), static_cast<uint32_t>(piece)};
        req.file = handle;
        req.op = IoOp::kRead;
        req.offset = begin;
        req.len = static_cast<uint32_t>(stop - begin);
        pos += piece;
        return true;
      },
      [&](unsigned slot, const IoRequest& req) {
        if (!verify || !corrupt.empty()) return;
        const SlotRead& sr = slots[slot];
        const uint64_t h0 = now_ns();
        uint64_t bad = 0;
        if (!check_tensor_bytes(m.seed, m.step, sr.key, sr.tensor_offset,
                                static_cast<const unsigned char*>(req.buf) + sr.skip, sr.want, &bad, m.reduce,
                                sr.file_phase)) {
          corrupt = "corrupt: file bytes from " + std::to_string(req.offset + sr.skip) +
                    " do not hold tensor " + "bytes " + std::to_string(sr.tensor_offset) +
                    " on (first wrong tensor byte " + std::to_string(bad) + ")";
        }
        rd->verify_ns += now_ns() - h0;
        rd->verified_bytes += sr.want;
      });
  s.update(rd->engine->remove_file(handle));
  rd->tally.bytes += pump.stats().bytes;
  rd->tally.ios += pump.stats().ios;
  if (s.code() == Status::Code::kInterrupted) return s;
  if (!s.ok()) {
    rd->bad.push_back({e.name, "read failed: " + s.message(), true});
  } else if (!corrupt.empty()) {
    rd->bad.push_back({e.name, corrupt});
  }
  return Status::Ok();
}

}  // namespace

Status read_slices(const RestoreParams& p, const PhaseContext& ctx, const StepFolder& step, const Manifest& m,
                   uint64_t t0, Reader* rd) {
  const uint64_t start = now_ns();
  Status result;
  for (size_t first = 0; first < rd->slices.size();) {
    size_t last = first;
    while (last < rd->slices.size() && rd->slices[last].shard == rd->slices[first].shard) ++last;
    if (!rd->skipped_shards.contains(rd->slices[first].shard)) {
      result = read_file_slices(p, ctx, step, m, t0, first, last, rd);
      if (!result.ok()) break;
    }
    first = last;
  }
  rd->tally.span(start - t0, now_ns() - t0);
  return result;
}

}  // namespace iofab
