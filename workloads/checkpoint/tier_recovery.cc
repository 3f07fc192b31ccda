#include "workloads/checkpoint/tier_recovery.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <thread>

#include "harness/comm/rank_gather.h"
#include "harness/engines/io_driver.h"
#include "harness/fs/page_cache.h"
#include "workloads/checkpoint/folder_layout.h"
#include "workloads/checkpoint/xxh3.h"

namespace iofab {
namespace {

constexpr size_t kRecoveryAlign = 4096;

struct RecoveryFreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// Reads the file whole and checks it against what its writer wrote.
Status read_and_verify(Store& store, const std::string& path, const WrittenFile& wk, size_t block,
                       uint64_t* bytes) {
  StoreFile f;
  Status s = store.open(path, {}, &f);
  if (!s.ok()) return s;
  void* raw = nullptr;
  if (posix_memalign(&raw, kRecoveryAlign, block) != 0)
    return Status::IoError("recovery: out of memory for a buffer");
  const std::unique_ptr<void, RecoveryFreeDeleter> buf(raw);
  StreamingXxh3 hash;
  uint64_t offset = 0;
  while (true) {
    const ssize_t n = pread(f.fd(), raw, block, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno("read " + path, errno);
    if (n == 0) break;
    hash.update(raw, static_cast<size_t>(n));
    offset += static_cast<uint64_t>(n);
  }
  *bytes = offset;
  if (offset != wk.bytes) {
    return Status::IoError(path + ": " + std::to_string(offset) + " bytes, " + std::to_string(wk.bytes) +
                           " were written");
  }
  if (hash.digest() != wk.xxh3) {
    return Status::IoError(path + ": corrupt: xxh3 " + xxh3_hex(hash.digest()) + ", " + xxh3_hex(wk.xxh3) +
                           " was written");
  }
  return Status::Ok();
}

// Collective: this rank's files of step_folder in store, cold where the kernel lets go, timed
// after a barrier. *ns: the slowest rank's time.
Status time_tier(PhaseContext& ctx, Store& store, const std::string& step_folder,
                 const std::vector<WrittenFile>& files, size_t block, uint64_t* ns, uint64_t* bytes,
                 std::string* cache_note) {
  Status mine;
  for (const WrittenFile& wk : files) {
    StoreFile f;
    mine = store.open(join_store_path(step_folder, wk.name), {}, &f);
    if (!mine.ok()) break;
    // Untimed, as the restore phase drops its shards' pages: a restarted job meets a cold cache.
    Status d = drop_cached_pages(f.fd());
    uint64_t resident = 0;
    const bool kept = resident_bytes(f.fd(), wk.bytes, &resident).ok() && resident > 0;
    if ((!d.ok() || kept) && cache_note->empty()) {
      *cache_note = store.location() + "/" + join_store_path(step_folder, wk.name) + ": " +
                    (d.ok() ? std::to_string(resident) + " bytes stayed in the page cache" : d.message());
    }
  }
  Status b = ctx.comm.barrier();
  if (!b.ok()) return b;
  const uint64_t t0 = now_ns();
  std::vector<Status> outcome(files.size());
  std::vector<uint64_t> read(files.size(), 0);
  if (mine.ok()) {
    std::vector<std::thread> threads;
    for (size_t w = 0; w < files.size(); ++w) {
      threads.emplace_back([&, w] {
        outcome[w] =
            read_and_verify(store, join_store_path(step_folder, files[w].name), files[w], block, &read[w]);
      });
    }
    for (auto& t : threads) t.join();
  }
  const uint64_t elapsed = now_ns() - t0;
  for (size_t w = 0; w < files.size(); ++w) {
    keep_worst(&mine, outcome[w]);
    *bytes += read[w];
  }
  std::vector<uint64_t> all;
  Status g = all_gather(ctx.comm, elapsed, &all);
  if (!g.ok()) return g;
  *ns = *std::max_element(all.begin(), all.end());
  return mine;
}

}  // namespace

Status time_recovery(PhaseContext& ctx, LocalTier& tier, uint64_t step, const std::vector<WrittenFile>& files,
                     uint64_t block_size, bool can, TierRecovery* out) {
  std::vector<int> all;
  Status a = all_gather(ctx.comm, can ? 1 : 0, &all);
  if (!a.ok()) return a;
  if (!std::all_of(all.begin(), all.end(), [](int c) { return c == 1; })) return Status::Ok();
  const size_t block =
      static_cast<size_t>(std::max<uint64_t>(kRecoveryAlign, block_size / kRecoveryAlign * kRecoveryAlign));
  out->step = step;
  uint64_t local_bytes = 0, shared_bytes = 0;
  // Both tiers on every rank, whatever one rank's reads met: each is collective.
  const Status from_local = time_tier(ctx, tier.store(), join_store_path(tier.folder(), step_dir_name(step)),
                                      files, block, &out->local_ns, &local_bytes, &out->local_cache_note);
  const Status from_shared = time_tier(ctx, *ctx.store, join_store_path(ctx.phase_name, step_dir_name(step)),
                                       files, block, &out->shared_ns, &shared_bytes, &out->shared_cache_note);
  std::vector<uint64_t> rank_bytes;
  Status g = all_gather(ctx.comm, local_bytes, &rank_bytes);
  if (!from_local.ok())
    return Status::FromCode(from_local.code(), "recovery from the local tier: " + from_local.message());
  if (!from_shared.ok()) {
    return Status::FromCode(from_shared.code(), "recovery from the shared tier: " + from_shared.message());
  }
  if (!g.ok()) return g;
  for (uint64_t b : rank_bytes) out->bytes += b;
  out->measured = true;
  return Status::Ok();
}

}  // namespace iofab
