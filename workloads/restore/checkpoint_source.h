// Where the checkpoint to restore is, and every namespace call the restore
// phase makes, each behind one small function over a Store: finding the
// checkpoint (an earlier checkpoint phase of this run, in the run's store, or
// `from`, a folder another run left, in a read-only POSIX store rooted
// there), reading its manifest, opening its step folder and its shard files.
// The same calls read from either store. The checkpoint is only read here,
// never written or removed.
//
// Thread-safety: reentrant, as the Store is.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "harness/comm/wire.h"
#include "harness/core/status.h"
#include "harness/phase/phase.h"
#include "harness/store/store.h"
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
nlohmann::json to_wire(const Source& s);
Status from_wire(const nlohmann::json& j, Source* out);

// The checkpoint every rank restores, as rank 0's Source told it.
struct LocatedCheckpoint {
  bool external = false;
  std::string dir;  // as Source::dir
  Manifest manifest;
};

// Rank 0: `from` (a step-N/ folder, or a checkpoint phase's folder: its
// newest step), else the newest step of the phase named `checkpoint`, else
// of the earlier checkpoint phase of this run that committed last. back > 0:
// the back-th committed step before the newest (steps: N reads N of them).
Source find_checkpoint(const RestoreParams& p, const PhaseContext& ctx, uint64_t back = 0);

// Reads and validates kCheckpointManifestName in folder of store; where names the folder in messages.
Status read_manifest(Store& store, std::string_view folder, std::string_view where, Manifest* m);

// The step folder every rank reads: in the run's store, or in a read-only
// store of its own rooted at an external checkpoint's step.
struct StepFolder {
  Store* store = nullptr;
  std::string path;                 // below store's root; "" when the store is rooted at the step
  std::unique_ptr<Store> external;  // owns the store of a checkpoint outside the run
};
// Opens the step folder cp names (cp.dir, external or in run_store).
Status open_step_folder(Store& run_store, const LocatedCheckpoint& cp, StepFolder* out);
// The block device an external checkpoint lies on, for its disk counters; "" when unknown.
std::string block_device_of(const std::string& dir);

// Opens shard name in the step folder for reading (O_DIRECT when direct);
// only a regular file opens, without blocking.
Status open_shard(const StepFolder& step, const std::string& name, bool direct, StoreFile* out);
// The size of shard name; false when it is not a regular file.
bool shard_file_size(const StepFolder& step, const std::string& name, uint64_t* size);

}  // namespace iofab
