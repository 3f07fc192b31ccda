#include "workloads/checkpoint/tier_local.h"

#include "harness/comm/local_rank.h"
#include "harness/comm/rank_gather.h"
#include "harness/core/units.h"
#include "harness/fs/target.h"
#include "harness/store/posix_store.h"
#include "workloads/checkpoint/commit.h"
#include "workloads/checkpoint/manifest.h"
#include "workloads/checkpoint/phase_folder.h"
#include "workloads/local_folder.h"

namespace iofab {
namespace {

}  // namespace

std::vector<WrittenFile> written_files(const std::vector<Writer>& writers, const ShardLayout& l) {
  std::vector<WrittenFile> out;
  for (const Writer& wk : writers) {
    if (!wk.active) continue;
    for (const ShardResult& r : wk.written) {
      out.push_back({l.name_of(r.shard), r.bytes, r.xxh3, static_cast<int>(wk.worker)});
    }
  }
  return out;
}

Status host_share(const PhaseContext& ctx, const std::vector<Writer>& writers, const ShardLayout& l,
                  HostShare* out) {
  uint64_t mine = 0;
  for (const Writer& wk : writers) mine += wk.active ? writer_bytes(wk, l) : 0;
  LocalRank here;
  Status s = find_local_rank(ctx.comm, &here);
  std::vector<std::string> hosts;
  std::vector<uint64_t> bytes;
  if (s.ok()) s = all_gather(ctx.comm, here.host, &hosts);
  if (s.ok()) s = all_gather(ctx.comm, mine, &bytes);
  if (!s.ok()) return s;
  *out = HostShare{0, 0};
  for (size_t r = 0; r < hosts.size() && r < bytes.size(); ++r) {
    if (hosts[r] != here.host) continue;
    out->bytes += bytes[r];
    ++out->ranks;
  }
  return Status::Ok();
}

LocalTier::LocalTier(const PhaseContext& ctx, std::string local_dir, std::string run_name,
                     std::unique_ptr<Store> store)
    : local_dir_(std::move(local_dir)),
      run_name_(std::move(run_name)),
      phase_(ctx.phase_name),
      folder_(join_store_path(ctx.phase_name, "rank-" + std::to_string(ctx.comm.rank()))),
      location_(store->location() + "/" + folder_),
      store_(std::move(store)),
      wctx_(ctx),
      keep_(ctx.keep) {
  wctx_.store = store_.get();
  wctx_.phase_name = folder_;
}

LocalTier::~LocalTier() {
  // The phase's way out without a call to remove() (an early return): still never leave the local copy.
  remove().ignore_error();
}

Status LocalTier::open(const CheckpointParams& p, const PhaseContext& ctx, const HostShare& host,
                       std::unique_ptr<LocalTier>* out) {
  TargetInfo info;
  Status s = check_target(p.local_dir, &info);
  if (!s.ok()) {
    std::string msg = s.message();
    if (msg.starts_with("target ")) msg.erase(0, 7);
    return Status::Invalid("local_dir " + msg);
  }
  const uint64_t need = 2 * host.bytes + local_room_margin(2 * host.bytes);
  if (need > info.free_bytes) {
    const std::string who =
        host.ranks == 1 ? "this rank needs " : std::to_string(host.ranks) + " ranks here need ";
    return Status::Invalid("local_dir " + info.path + " has " + std::to_string(info.free_bytes) +
                           " bytes free (" + units::format_bytes(static_cast<double>(info.free_bytes)) +
                           "); " + who + std::to_string(need) +
                           " bytes: two checkpoints (the newest and the one being written) plus a margin; "
                           "nothing was written");
  }
  const std::string run_name = local_run_folder_name(ctx.run_dir_path);
  std::unique_ptr<Store> store;
  s = open_posix_store(info.path + "/" + run_name, true, &store);
  if (!s.ok()) return Status::IoError("local_dir " + info.path + ": " + s.message());
  // From here a failure leaves nothing behind: the tier's destructor removes what was made.
  std::unique_ptr<LocalTier> tier(new LocalTier(ctx, info.path, run_name, std::move(store)));
  // Held like the run folder, so `iofab clean` on local_dir sees a live run's folder.
  s = tier->hold_.hold(info.path + "/" + run_name, ctx.keep);
  if (s.ok()) s = tier->store_->make_folder(ctx.phase_name);
  if (s.ok()) s = tier->store_->make_folder(tier->folder_);
  if (!s.ok()) return Status::IoError("local_dir " + info.path + ": " + s.message());
  *out = std::move(tier);
  return Status::Ok();
}

Status LocalTier::commit(const CheckpointParams& p, const ShardLayout& l, uint64_t step,
                         const std::vector<Writer>& writers) {
  std::vector<ShardEntry> shards;
  for (const WrittenFile& f : written_files(writers, l)) {
    ShardEntry e;
    e.name = f.name;
    e.bytes = f.bytes;
    e.xxh3 = f.xxh3;
    e.rank = wctx_.comm.rank();
    e.worker = f.worker;
    shards.push_back(std::move(e));
  }
  // The same manifest as the target's commit writes; its layout decides how the step commits (dcp:
  // .metadata written last, in place).
  return commit_step_folder(*store_, folder_, make_manifest(p, l, step, phase_, std::move(shards)));
}

Status LocalTier::rotate() {
  uint64_t deleted = 0;
  return rotate_steps(*store_, folder_, 1, &deleted);
}

Status LocalTier::remove() {
  if (removed_ || keep_ || store_ == nullptr) return Status::Ok();
  removed_ = true;
  Status s = store_->remove_tree(folder_);
  // Empty folders only: another rank on this node may still be using its own folder in them.
  store_->remove(phase_).ignore_error();
  store_.reset();
  hold_.release_and_remove();  // as above: empty only, the last rank's removes it
  if (!s.ok())
    return Status::IoError("local_dir: removing " + local_dir_ + "/" + run_name_ + "/" + folder_ + ": " +
                           s.message());
  return Status::Ok();
}

}  // namespace iofab
