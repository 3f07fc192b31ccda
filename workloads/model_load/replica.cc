#include "workloads/model_load/replica.h"

#include "harness/engines/in_order_reader.h"
#include "workloads/model_load/file_check.h"

namespace iofab {

Status setup_replica(const PhaseContext& ctx, const ModelLoadParams& p, const std::string& engine,
                     Replica* r) {
  EngineOptions eo;
  eo.queue_depth = p.queue_depth;
  eo.map_advice = p.madvise;
  eo.max_files = 2;  // one file at a time
  Status s = make_phase_engine(ctx, engine, eo, &r->engine);
  // Twice the queue depth: blocks that complete early wait in the ring for a late one (the check needs
  // them in order) without lowering the reads in flight.
  // (At queue depth 1 that is the block the checker holds, and the one read beside it.)
  if (s.ok()) s = IoBuffers::allocate(2 * static_cast<size_t>(p.queue_depth), p.block_size, &r->ring);
  if (s.ok() && r->engine->caps().sync && r->engine->caps().moves_data)
    r->checker = std::make_unique<BesideThread>();
  if (s.ok()) s = r->engine->register_buffers(r->ring.iovecs());
  return s;
}

Status load_replica(const PhaseContext& ctx, const ModelLoadParams& p, const std::string& folder,
                    const std::vector<WeightFile>& files, uint64_t t0, Replica* r) {
  const uint64_t start = now_ns();
  InOrderReader reader(*r->engine, r->ring, p.queue_depth, true, &r->tally.latency, &r->tally.series, t0,
                       &ctx.progress.done_bytes, &ctx.stop);
  // An engine that moves no data (null) hands back buffers the file never filled: checking them would
  // call an intact file corrupt. Its files are read, not verified.
  const bool verify = r->engine->caps().moves_data;
  BesideThread* beside = verify ? r->checker.get() : nullptr;
  reader.hold_last(beside != nullptr);
  Status result;
  for (const WeightFile& f : files) {
    StoreFile file;
    Status s = ctx.store->open(join_store_path(folder, f.name), {}, &file);
    int handle = -1;
    if (s.ok()) s = r->engine->add_store_file(file, &handle);
    if (!s.ok()) {
      r->bad.push_back({f.name, s.message(), true});
      continue;
    }
    SafetensorsCheck check(f.bytes);
    s = reader.read(handle, f.bytes, static_cast<uint32_t>(p.block_size),
                    [&](const void* data, uint32_t len, uint64_t offset) {
                      const auto* bytes = static_cast<const unsigned char*>(data);
                      if (beside != nullptr) {
                        beside->post([&check, bytes, len, offset] { check.feed(bytes, len, offset); });
                      } else if (verify) {
                        check.feed(bytes, len, offset);
                      }
                    });
    if (beside != nullptr) beside->wait();  // the file's last block checked; its slot free for the next
    s.update(r->engine->remove_file(handle));
    r->header_ns += check.header_ns();
    r->verify_ns += check.verify_ns();
    r->verified_bytes += check.verified_bytes();
    r->tensors += check.tensors();
    if (s.code() == Status::Code::kInterrupted) {
      result = s;
      break;
    }
    if (!s.ok()) {
      r->bad.push_back({f.name, "read failed: " + s.message(), true});
      continue;
    }
    if (Status c = verify ? check.finish() : Status::Ok(); !c.ok()) r->bad.push_back({f.name, c.message()});
  }
  const uint64_t end = now_ns();
  if (result.ok() && r->bad.empty()) r->ready_ns = end - t0;
  r->tally.bytes += reader.stats().bytes;
  r->tally.ios += reader.stats().ios;
  r->tally.span(start - t0, end - t0);
  return result;
}

}  // namespace iofab
