// "mem": the engine of the memory object store's files (mem_object_store.h), as "s3" is the S3 store's.
// Synchronous: a read copies from the object as it was last committed (a ranged GET; past its end, 0
// bytes; a missing object, -ENOENT), writes must come in order (an object has no offsets to write at) and
// are kept until fsync, the commit, puts the object whole. A file removed, or the engine gone, before its
// commit leaves nothing, as an aborted upload does.
//
// Not in the engine table: a test adds it for as long as it needs it (MemEngineAdded), so iofab's own
// engines stay the table's rows.
#pragma once

#include <memory>

#include "harness/core/status.h"
#include "harness/engines/added_engine.h"
#include "harness/engines/engine.h"

namespace iofab::mem {

Status make_mem_object_engine(const EngineOptions& opts, std::unique_ptr<Engine>* out);

// "mem" known to make_engine while it lives: a test's (or its fixture's) member.
class MemEngineAdded {
 private:
  AddedEngine added_{
      "mem", "the memory object store's objects (tests only): ranged reads, in-order writes, fsync commits",
      make_mem_object_engine};
};

}  // namespace iofab::mem
