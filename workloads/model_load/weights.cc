#include "workloads/model_load/weights.h"

#include <algorithm>
#include <memory>

#include "harness/comm/agree.h"
#include "harness/engines/io_buffers.h"
#include "harness/engines/io_pump.h"
#include "harness/fs/page_cache.h"
#include "harness/store/store_bytes.h"

namespace iofab {
namespace {

// The index is small (a line a tensor): 64 MiB is far above any real model's.
constexpr uint64_t kMaxIndexBytes = 64ULL << 20;

Status write_one(PhaseContext& ctx, const ModelLoadParams& p, const std::string& engine_name,
                 const std::string& folder, const ModelFile& f) {
  StoreFile file;
  Status s = ctx.store->create(join_store_path(folder, f.name), {}, &file);
  EngineOptions eo;
  eo.queue_depth = p.queue_depth;
  eo.max_files = 2;
  std::unique_ptr<Engine> engine;
  if (s.ok()) s = make_phase_engine(ctx, engine_name, eo, &engine);
  IoBuffers bufs;
  if (s.ok()) s = IoBuffers::allocate(p.queue_depth, p.block_size, &bufs);
  if (s.ok()) s = engine->register_buffers(bufs.iovecs());
  int handle = -1;
  if (s.ok()) s = engine->add_store_file(file, &handle);
  if (!s.ok()) return s;
  IoPump pump(*engine, bufs, {.slots = p.queue_depth, .fixed_buffers = true, .stop = &ctx.stop});
  uint64_t offset = 0;
  s = pump.run(
      [&](unsigned, IoRequest& req) {
        if (offset >= f.bytes) return false;
        req.file = handle;
        req.op = IoOp::kWrite;
        req.offset = offset;
        req.len = static_cast<uint32_t>(std::min<uint64_t>(p.block_size, f.bytes - offset));
        fill_model_file(f, p.seed, offset, static_cast<unsigned char*>(req.buf), req.len);
        offset += req.len;
        return true;
      },
      [](unsigned, const IoRequest&) {});
  // An object store's file exists once its engine commits it; a file with a descriptor is synced.
  if (s.ok()) s = ctx.store->caps().commit_per_file ? engine->fsync(handle) : ctx.store->sync(file);
  if (!s.ok()) return Status::FromCode(s.code(), f.name + ": " + s.message());
  return s;
}

}  // namespace

Status write_weights(PhaseContext& ctx, const ModelLoadParams& p, const std::string& engine,
                     const std::string& folder, double* seconds) {
  const int rank = ctx.comm.rank();
  const int ranks = ctx.comm.size();
  Status st = rank == 0 ? ctx.store->make_folder(folder) : Status::Ok();
  st = agree(ctx.comm, st);
  const uint64_t t0 = now_ns();
  for (size_t i = static_cast<size_t>(rank); st.ok() && i < p.files.files.size();
       i += static_cast<size_t>(ranks)) {
    st = write_one(ctx, p, engine, folder, p.files.files[i]);
  }
  *seconds = (now_ns() - t0) * 1e-9;
  st = agree(ctx.comm, st);
  if (!st.ok()) return st;
  // The index last, once every file is there: a loader that finds it finds every file it names.
  if (rank == 0) {
    StoreFile index;
    st = ctx.store->create(join_store_path(folder, kModelIndexName), {}, &index);
    if (st.ok()) st = write_store_file(*ctx.store, index, model_index_json(p.files));
    if (st.ok()) st = ctx.store->sync_folder(folder);
  }
  return agree(ctx.comm, st);
}

Status find_weights(Store& store, const std::string& folder, ModelIndex* index,
                    std::vector<WeightFile>* files) {
  files->clear();
  const std::string index_path = join_store_path(folder, kModelIndexName);
  StoreFile index_file;
  Status s = store.open(index_path, {}, &index_file);
  if (!s.ok()) return Status::IoError("model weights: " + s.message());
  std::string text;
  s = read_store_file(store, index_file, kMaxIndexBytes, &text);
  if (s.ok()) s = parse_model_index(text, index);
  if (!s.ok()) return Status::IoError(store.location() + "/" + index_path + ": " + s.message());
  for (const std::string& name : index->files) {
    EntryInfo info;
    s = store.stat(join_store_path(folder, name), &info);
    if (s.ok() && info.kind != EntryKind::kFile) {
      s = Status::IoError(store.location() + "/" + join_store_path(folder, name) +
                          (info.kind == EntryKind::kMissing
                               ? ": missing, though " + std::string(kModelIndexName) + " names it"
                               : ": not a regular file"));
    }
    if (!s.ok()) return s;
    files->push_back({name, info.size});
  }
  return Status::Ok();
}

DropOutcome drop_weight_pages(Store& store, const std::string& folder, const std::vector<WeightFile>& files) {
  DropOutcome out;
  for (const WeightFile& f : files) {
    StoreFile file;
    Status s = store.open(join_store_path(folder, f.name), {}, &file);
    if (s.ok() && file.fd() >= 0) s = drop_cached_pages(file.fd());
    if (!s.ok()) {
      if (out.problem.empty()) out.problem = f.name + ": " + s.message();
      continue;
    }
    uint64_t resident = 0;
    if (resident_bytes(file.fd(), f.bytes, &resident).ok()) {
      out.checked += f.bytes;
      out.resident += resident;
    }
  }
  return out;
}

}  // namespace iofab
