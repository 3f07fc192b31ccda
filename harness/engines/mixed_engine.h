// MixedEngine: one Engine over two, for a reader whose files are of two
// kinds: an object store's objects (an S3 dataset) and descriptors (the
// local cache tier in front of it). Each file goes to the engine that takes
// its kind, and the caller drives one engine (one IoPump) as before.
//
// The descriptor engine must be synchronous (psync): its I/O completes
// inside queue(), so reap() waits on the object engine alone and never sits
// on one engine while the other's completions wait.
//
// Thread-safety: as every Engine, one worker thread at a time.
#pragma once

#include <memory>

#include "harness/engines/engine.h"

namespace iofab {

// objects: the object store's engine (s3); descriptors: a synchronous descriptor engine. Refuses an
// asynchronous descriptor engine (Internal: a caller's mistake).
Status make_mixed_engine(std::unique_ptr<Engine> objects, std::unique_ptr<Engine> descriptors,
                         std::unique_ptr<Engine>* out);

}  // namespace iofab
