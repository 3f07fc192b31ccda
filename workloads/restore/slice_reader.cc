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

// The reads of slices [first, last) of rd, in file order: each at most block_size bytes of one slice
// (with O_DIRECT widened to whole 4 KiB units, kept within the buffer), and what its bytes should hold.
class SliceCursor {
 public:
  SliceCursor(const RestoreParams& p, const Reader& rd, size_t first, size_t last)
      : p_(p), rd_(rd), i_(first), last_(last), pos_(rd.slices[first].file_offset) {}

  // The next read into req (on handle) and *slot; false when the slices are read.
  bool next(int handle, SlotRead* slot, IoRequest& req) {
    while (i_ < last_ && pos_ >= rd_.slices[i_].file_offset + rd_.slices[i_].bytes) {
      if (++i_ < last_) pos_ = rd_.slices[i_].file_offset;
    }
    if (i_ >= last_) return false;
    const SliceRead& sr = rd_.slices[i_];
    const uint64_t end = sr.file_offset + sr.bytes;
    uint64_t begin = pos_;
    uint64_t piece = std::min<uint64_t>(p_.block_size, end - pos_);
    if (p_.direct) {
      // O_DIRECT reads whole 4 KiB units: widen the block, keep it within the buffer.
      begin = pos_ / kShardAlign * kShardAlign;
      piece = std::min<uint64_t>(piece, p_.block_size - (pos_ - begin));
    }
    const uint64_t stop =
        p_.direct ? (pos_ + piece + kShardAlign - 1) / kShardAlign * kShardAlign : pos_ + piece;
    *slot = {sr.key, sr.tensor_offset + (pos_ - sr.file_offset), sr.file_offset - sr.tensor_offset,
             static_cast<uint32_t>(pos_ - begin), static_cast<uint32_t>(piece)};
    req.file = handle;
    req.op = IoOp::kRead;
    req.offset = begin;
    req.len = static_cast<uint32_t>(stop - begin);
    pos_ += piece;
    return true;
  }

 private:
  const RestoreParams& p_;
  const Reader& rd_;
  size_t i_;
  const size_t last_;
  uint64_t pos_;
};

// Checks a completed read's bytes against the tensor bytes they should hold; the first mismatch goes
// into *corrupt, and the time and bytes into rd's verify figures.
void verify_slot(const Manifest& m, const SlotRead& sr, const IoRequest& req, Reader* rd,
                 std::string* corrupt) {
  const uint64_t h0 = now_ns();
  uint64_t bad = 0;
  if (!check_tensor_bytes(m.seed, m.step, sr.key, sr.tensor_offset,
                          static_cast<const unsigned char*>(req.buf) + sr.skip, sr.want, &bad, m.reduce,
                          sr.file_phase)) {
    *corrupt = "corrupt: file bytes from " + std::to_string(req.offset + sr.skip) + " do not hold tensor " +
               "bytes " + std::to_string(sr.tensor_offset) + " on (first wrong tensor byte " +
               std::to_string(bad) + ")";
  }
  rd->verify_ns += now_ns() - h0;
  rd->verified_bytes += sr.want;
}

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
  SliceCursor cursor(p, *rd, first, last);
  std::string corrupt;
  s = pump.run([&](unsigned slot, IoRequest& req) { return cursor.next(handle, &slots[slot], req); },
               [&](unsigned slot, const IoRequest& req) {
                 if (verify && corrupt.empty()) verify_slot(m, slots[slot], req, rd, &corrupt);
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
