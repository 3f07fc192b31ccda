// The checkpoint phase's folder on the target, and every namespace call the
// phase makes (mkdirat, openat, renameat, readdir, fstatat, unlinkat and the
// fsyncs that make them durable), each behind one small function: the rest
// of the phase names files (folder_layout.h) and moves bytes (writer.h).
//
// The commit protocol, as frameworks commit theirs: the shards of step N are
// written into step-N.tmp/ and fsynced; then the manifest, written last, is
// fsynced with the folder; the rename to step-N/ publishes the step and an
// fsync of the phase folder makes the rename durable. A crash before the
// rename leaves only a .tmp, never a checkpoint.
//
// Every name is opened relative to a folder fd, no symlink followed
// (harness/fs/run_dir.h). Thread-safety: reentrant; each call works on the
// folder fd it is given.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "workloads/checkpoint/manifest.h"

namespace iofab {

// The phase's folder under the run folder, created when missing. Close it with close_phase_folder.
Status open_phase_folder(int run_dir_fd, const std::string& phase_name, int* fd);
void close_phase_folder(int fd);  // fd < 0: nothing to close

struct StepListing {
  std::vector<uint64_t> committed;  // ascending
  std::vector<std::string> tmp;     // names of step-*.tmp folders
};
// Lists dirfd's step folders (no symlink followed; other entries ignored).
Status list_steps_at(int dirfd, StepListing* out);

// Before the first step: removes the step-N.tmp/ folders an interrupted run
// left (*removed counts them) and sets *newest to the newest committed step,
// 0 when none, so the new steps are numbered after it. A failed removal is
// returned after the others were tried.
Status remove_stale_steps(int phase_fd, uint64_t* removed, uint64_t* newest);
// After the last step: a step that did not commit leaves only its .tmp;
// removed at once, errors ignored (the run folder goes with the run).
void remove_uncommitted_steps(int phase_fd);

// Creates the shard file name in step-N.tmp/ (the folder too, for the first
// shard) for writing, never over an existing file; O_DIRECT when direct.
Status create_shard_file(int phase_fd, uint64_t step, const std::string& name, bool direct, int* fd);

// Creates kManifestName under dirfd (never overwriting), writes it and
// fsyncs it. The caller fsyncs the folder.
Status write_manifest_at(int dirfd, const Manifest& m);
// Commits step m.step: the manifest into step-N.tmp/, fsyncs, the rename to
// step-N/ and the fsync of the phase folder (named phase_name in messages).
Status commit_step_folder(int phase_fd, const std::string& phase_name, const Manifest& m);
// Removes committed steps beyond the newest keep, oldest first.
Status rotate_steps(int phase_fd, unsigned keep, uint64_t* deleted);

}  // namespace iofab
