#include "workloads/restore/reader.h"

#include "harness/engines/engine_choice.h"
#include "harness/engines/in_order_reader.h"
#include "harness/engines/io_pump.h"
#include "harness/fs/page_cache.h"
#include "workloads/checkpoint/shard_layout.h"
#include "workloads/checkpoint/xxh3.h"
#include "workloads/restore/checkpoint_source.h"

namespace iofab {
namespace {

// Before any timed read: missing, not regular, of the wrong size or unfit
// for O_DIRECT is a bad shard; else its cached pages go (cold cache).
void check_shard(const RestoreParams& p, const StepFolder& step, const ShardEntry& e, Task* t, Reader* rd) {
  StoreFile file;
  Status s = open_shard(step, e.name, false, &file);
  if (!s.ok()) {
    t->skip = true;
    const bool missing = s.message().find("No such file") != std::string::npos;
    rd->bad.push_back({e.name, missing ? "missing (" + s.message() + ")" : s.message(), !missing});
    return;
  }
  uint64_t size = 0;
  if (!shard_file_size(step, e.name, &size)) {
    t->skip = true;
    rd->bad.push_back({e.name, "not a regular file"});
  } else if (size != e.bytes) {
    t->skip = true;
    rd->bad.push_back({e.name, (size < e.bytes ? "short: " : "too long: ") + std::to_string(size) +
                                   " bytes, the manifest says " + std::to_string(e.bytes)});
  } else if (p.direct && e.bytes % kShardAlign != 0) {
    t->skip = true;
    rd->bad.push_back({e.name,
                       "size " + std::to_string(e.bytes) +
                           " is not a multiple of 4 KiB, which O_DIRECT needs: set direct: false",
                       true});
  } else if (!p.direct && p.drop_cache && file.fd() >= 0) {
    // Cold cache: what a restarted job on a fresh node would meet.
    Status d = drop_cached_pages(file.fd());
    if (!d.ok() && rd->drop_problem.empty()) rd->drop_problem = e.name + ": " + d.message();
    uint64_t resident = 0;
    if (resident_bytes(file.fd(), e.bytes, &resident).ok()) {
      rd->checked_bytes += e.bytes;
      rd->resident_bytes += resident;
    }
  }
}

}  // namespace

Status setup_reader(const RestoreParams& p, const StepFolder& step, const Manifest& m, Reader* rd) {
  for (auto& t : rd->tasks) check_shard(p, step, m.shards[t.shard], &t, rd);
  std::set<size_t> sliced;
  for (const SliceRead& sr : rd->slices) sliced.insert(sr.shard);
  for (size_t shard : sliced) {
    Task t{shard};
    check_shard(p, step, m.shards[shard], &t, rd);
    if (t.skip) rd->skipped_shards.insert(shard);
  }
  EngineOptions eo;
  eo.queue_depth = p.queue_depth;
  eo.direct = p.direct;
  eo.map_advice = p.madvise;
  eo.max_files = 2;  // one shard at a time
  std::string engine;
  Status s = engine_for_store(*step.store, p.engine, &engine);
  if (!s.ok()) return s;
  s = make_engine(engine, eo, &rd->engine);
  if (!s.ok()) return s;
  // Twice the queue depth: blocks that complete early wait in the ring for a late one without
  // lowering the reads in flight (verification needs them in order).
  s = IoBuffers::allocate(2 * static_cast<size_t>(p.queue_depth), p.block_size, &rd->ring);
  if (!s.ok()) return s;
  // A synchronous engine reads nothing while its thread hashes: the hash goes beside it. (An asynchronous
  // one already hashes a block while the next reads are in flight.)
  const EngineCaps caps = rd->engine->caps();
  if (caps.moves_data && caps.sync && !rd->hasher) rd->hasher = std::make_unique<BackgroundXxh3>();
  return rd->engine->register_buffers(rd->ring.iovecs());
}

Status read_shards(const RestoreParams& p, const PhaseContext& ctx, const StepFolder& step, const Manifest& m,
                   uint64_t t0, Reader* rd) {
  const uint64_t start = now_ns();
  const bool verify = rd->engine->caps().moves_data;
  InOrderReader reader(*rd->engine, rd->ring, p.queue_depth, true, &rd->tally.latency, &rd->tally.series, t0,
                       &ctx.progress.done_bytes, &ctx.stop);
  // Synchronous engines: the hash of block b runs beside the read of block b + 1 (background_xxh3.h).
  const bool beside = verify && rd->hasher != nullptr;
  reader.hold_last(beside);
  const uint64_t hashed0 = beside ? rd->hasher->busy_ns() : 0;
  Status result;
  for (const auto& t : rd->tasks) {
    if (t.skip) continue;
    const ShardEntry& e = m.shards[t.shard];
    StoreFile file;
    Status s = open_shard(step, e.name, p.direct, &file);
    if (!s.ok()) {
      if (p.direct && s.message().find("Invalid argument") != std::string::npos) {
        return Status::IoError(s.message() +
                               " (this filesystem does not support O_DIRECT; set direct: false)");
      }
      rd->bad.push_back({e.name, s.message(), true});
      continue;
    }
    int handle = -1;
    s = rd->engine->add_store_file(file, &handle);
    if (!s.ok()) return s;
    // Waits for the last file's last block: no slot is read into while the hasher holds it.
    if (beside) rd->hasher->reset();
    StreamingXxh3 hash;
    s = reader.read(handle, e.bytes, static_cast<uint32_t>(p.block_size),
                    [&](const void* data, uint32_t len, uint64_t) {
                      if (!verify) return;
                      rd->verified_bytes += len;
                      if (beside) return rd->hasher->feed(data, len);
                      const uint64_t h0 = now_ns();
                      hash.update(data, len);
                      rd->verify_ns += now_ns() - h0;
                    });
    const uint64_t digest = !verify ? 0 : beside ? rd->hasher->digest() : hash.digest();
    s.update(rd->engine->remove_file(handle));
    if (s.code() == Status::Code::kInterrupted) {
      result = s;
      break;
    }
    if (!s.ok()) {
      rd->bad.push_back({e.name, "read failed: " + s.message(), true});
      continue;
    }
    if (verify && digest != e.xxh3) {
      rd->bad.push_back(
          {e.name, "corrupt: xxh3 " + xxh3_hex(digest) + ", the manifest says " + xxh3_hex(e.xxh3)});
    }
  }
  if (beside) rd->verify_ns += rd->hasher->busy_ns() - hashed0;
  rd->tally.bytes += reader.stats().bytes;
  rd->tally.ios += reader.stats().ios;
  rd->tally.span(start - t0, now_ns() - t0);
  return result;
}

}  // namespace iofab
