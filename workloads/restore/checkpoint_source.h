// Where the checkpoint to restore is, and every namespace call the restore
// phase makes (openat, readdir, fstatat, fstat), each behind one small
// function: finding the checkpoint (an earlier checkpoint phase of this run,
// or `from`, a folder another run left), reading its manifest, opening its
// step folder and its shard files. The checkpoint is only read here, never
// written or removed.
//
// Thread-safety: reentrant; each call works on the fds it is given.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "harness/core/status.h"
#include "harness/phase/phase.h"
#include "workloads/checkpoint/manifest.h"
#include "workloads/restore/params.h"

namespace iofab {

// Where the checkpoint is, as rank 0 found it; sent to every rank.
struct Source {
  std::string error;
  bool external = false;  // `from`: an absolute path outside the run folder
  std::string dir;        // external: absolute path of step-N/; else "<phase>/step-N" under the run folder
  std::string manifest;   // its manifest, validated, as JSON text
};

// The checkpoint every rank restores, as rank 0's Source told it.
struct LocatedCheckpoint {
  bool external = false;
  std::string dir;  // as Source::dir
  Manifest manifest;
};

// Rank 0: `from` (a step-N/ folder, or a checkpoint phase's folder: its
// newest step), else the newest step of the phase named `checkpoint`, else
// of the earlier checkpoint phase of this run that committed last.
Source find_checkpoint(const RestoreParams& p, const PhaseContext& ctx);

// Reads and validates kManifestName under dirfd; where names the folder in messages.
Status read_manifest_at(int dirfd, std::string_view where, Manifest* m);

// The step folder a Source names (dir, external or under the run folder). Close it with close_step_folder.
Status open_step_folder(int run_dir_fd, bool external, const std::string& dir, int* fd);
void close_step_folder(int fd);  // fd < 0: nothing to close
// The block device an external checkpoint lies on, for its disk counters; "" when unknown.
std::string block_device_of(const std::string& dir);

// Opens shard name in the step folder for reading (O_DIRECT when direct);
// only a regular file opens, without blocking.
Status open_shard(int step_fd, const std::string& name, bool direct, int* fd);
// The size of an open shard; false when it is not a regular file.
bool shard_file_size(int fd, uint64_t* size);

}  // namespace iofab
