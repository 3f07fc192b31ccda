// The checkpoint phase's folder on the target, and every namespace call the
// phase makes (make_folder, create, commit, list, stat, remove_tree and the
// syncs that make them durable), each behind one small function over the
// Store: the rest of the phase names files (folder_layout.h) and moves bytes
// (writer.h).
//
// The commit protocol, as frameworks commit theirs: the shards of step N are
// written into step-N.tmp/ and synced; then the manifest, written last, is
// synced with the folder; the commit to step-N/ publishes the step and a sync
// of the phase folder makes the commit durable. A crash before the commit
// leaves only a .tmp, never a checkpoint.
//
// Every path is below the store's root ("<phase>/step-3.tmp/shard-..."), so
// the same calls read a checkpoint in this run's store or in a store rooted at
// another run's folder. Thread-safety: reentrant, as the Store is.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.h"
#include "harness/store/store.h"
#include "workloads/checkpoint/manifest.h"

namespace iofab {

struct StepListing {
  std::vector<uint64_t> committed;          // ascending
  std::vector<std::string> committed_dirs;  // their folders' names ("step-3", "iter_0000003"), in that order
  std::vector<std::string> tmp;     // names of step-*.tmp folders, and of step-N/ without a commit file
};
// Whether step_path holds a manifest.json or a .metadata (dcp): what makes a step folder a checkpoint.
bool holds_commit_file(Store& store, std::string_view step_path);
// The name of step_path's manifest: .metadata when there is one, else manifest.json.
std::string_view step_commit_file(Store& store, std::string_view step_path);
// Lists the step folders directly below folder ("" is the store's root);
// links, files and other names are ignored.
Status list_steps(Store& store, std::string_view folder, StepListing* out);

// Before the first step: removes the step-N.tmp/ folders an interrupted run
// left in folder (*removed counts them) and sets *newest to the newest
// committed step, 0 when none, so the new steps are numbered after it. A
// failed removal is returned after the others were tried.
Status remove_stale_steps(Store& store, std::string_view folder, uint64_t* removed, uint64_t* newest);
// After the last step: a step that did not commit leaves only its .tmp;
// removed at once, errors ignored (the run folder goes with the run).
void remove_uncommitted_steps(Store& store, std::string_view folder);

// Creates the shard file name in folder/<step_dir>.tmp/ (folder/<step_dir>/ when in_place: dcp, or
// megatron's own commit; the step folder and name's sub-folder too, for the first shard) for writing,
// never over an existing file; O_DIRECT when direct. step_dir: step_folder_name's.
Status create_shard_file(Store& store, std::string_view folder, std::string_view step_dir,
                         const std::string& name, bool direct, bool in_place, StoreFile* out);

// Creates name (the manifest) in folder (never overwriting), writes it and syncs
// it. The caller syncs the folder.
Status write_manifest(Store& store, std::string_view folder, const Manifest& m, std::string_view name);
// Commits step m.step in folder: the manifest into step-N.tmp/, syncs, the
// commit to step-N/ and the sync of folder. In place (dcp): syncs step-N/, writes .metadata.tmp,
// renames it to .metadata and syncs step-N/ again. Commit kMegatron: iter_N/ holds the files already; the
// manifest goes in unsynced, then the tracker is rewritten in place, unsynced, as Megatron-LM's rank 0 does
// (make_step_durable makes them durable afterwards).
Status commit_step_folder(Store& store, std::string_view folder, const Manifest& m,
                          CommitMode commit = CommitMode::kDurable);
// After a kMegatron commit, apart from the stall: fsyncs the files names (below folder/step_dir) this
// rank wrote; with commit_files (rank 0) also the manifest, the tracker and every folder they sit in.
Status make_step_durable(Store& store, std::string_view folder, std::string_view step_dir,
                         const std::vector<std::string>& names, bool commit_files);
// Removes committed steps in folder beyond the newest keep, oldest first.
Status rotate_steps(Store& store, std::string_view folder, unsigned keep, uint64_t* deleted);

}  // namespace iofab
