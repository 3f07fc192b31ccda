// The local tier of a two-tier checkpoint (tier: two): this rank's folder on
// node-local storage, <local_dir>/<run folder's name>/<phase>/rank-R/, named
// like the run folder on the target so a person can tell which run left it.
// Steps are written and committed there as on the target (phase_folder.h),
// one folder per rank: ranks on different nodes see different local_dirs, so
// the local commit is each rank's own. The local tier keeps only the newest
// step, the copy a restart on the same node recovers from.
//
// The folder goes with the LocalTier (end of phase, failure, Ctrl-C: every
// way out of the phase's run), unless --keep.
//
// Thread-safety: the Store is reentrant; the rest is for the phase's thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "harness/fs/run_folder_hold.h"
#include "harness/phase/phase.h"
#include "harness/store/store.h"
#include "workloads/checkpoint/params.h"
#include "workloads/checkpoint/writer.h"

namespace iofab {

// One file this rank's writers wrote of the checkpoint in progress, named as the layout names it.
struct WrittenFile {
  std::string name;  // below the step folder ("mp_rank_00/model_optim_rng.pt" for megatron)
  uint64_t bytes = 0;
  uint64_t xxh3 = 0;
  int worker = -1;
};
// Every file writers wrote of the step they wrote last.
std::vector<WrittenFile> written_files(const std::vector<Writer>& writers, const ShardLayout& l);

// What the ranks on this host write into local_dir per checkpoint: they share a node-local folder.
struct HostShare {
  uint64_t bytes = 0;
  int ranks = 1;
};
// Collective over ctx.comm: every rank calls it, with what its active writers write per checkpoint.
Status host_share(const PhaseContext& ctx, const std::vector<Writer>& writers, const ShardLayout& l,
                  HostShare* out);

class LocalTier {
 public:
  // Checks local_dir on this node (a writable folder, not a device) and its room for two checkpoints
  // of the host's ranks (the newest, kept for recovery, and the one being written), then makes the
  // rank's folder. A failed check writes nothing and names local_dir.
  static Status open(const CheckpointParams& p, const PhaseContext& ctx, const HostShare& host,
                     std::unique_ptr<LocalTier>* out);
  ~LocalTier();
  LocalTier(const LocalTier&) = delete;
  LocalTier& operator=(const LocalTier&) = delete;

  Store& store() { return *store_; }
  // The rank's folder below the store's root: "<phase>/rank-R".
  const std::string& folder() const { return folder_; }
  // The phase's context with the local store and folder: what the writers write through.
  const PhaseContext& write_context() const { return wctx_; }
  // The rank's folder as a path, for messages and the report.
  const std::string& location() const { return location_; }

  // Commits step in the rank's folder as the layout commits (phase_folder.h), with a manifest of the
  // files writers wrote, synced.
  Status commit(const CheckpointParams& p, const ShardLayout& l, uint64_t step,
                const std::vector<Writer>& writers);
  // Removes local steps older than the newest.
  Status rotate();
  // Removes the rank's folder, then the phase's and the run's local folders when no other rank of
  // this node still has one in them. Done once; the destructor does it when the phase did not.
  Status remove();

 private:
  LocalTier(const PhaseContext& ctx, std::string local_dir, std::string run_name,
            std::unique_ptr<Store> store);

  std::string local_dir_;
  std::string run_name_;  // the run folder's name, reused below local_dir
  std::string phase_;
  std::string folder_;
  std::string location_;
  std::unique_ptr<Store> store_;  // rooted at <local_dir>/<run_name>
  PhaseContext wctx_;
  bool keep_ = false;
  bool removed_ = false;
  RunFolderHold hold_;  // the run lock in <dir>/<run_name>, for `iofab clean`
};

}  // namespace iofab
