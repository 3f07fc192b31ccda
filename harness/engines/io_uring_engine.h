// The io_uring engine's entry points, for the engine table only. Declared in
// every build; defined only when liburing is found (io_uring_engine_uring.cc,
// built with IOFAB_HAVE_URING=1), so callers guard their calls with that macro.
#pragma once

#include <memory>
#include <string>

#include "harness/core/status.h"
#include "harness/engines/engine.h"

namespace iofab {

// Whether this kernel lets the process set up a ring (a kernel without
// io_uring, io_uring_disabled, or a seccomp filter may refuse); on false,
// *reason says why, e.g. "io_uring_setup: Operation not permitted".
bool io_uring_usable(std::string* reason);

Status make_io_uring_engine(const EngineOptions& opts, std::unique_ptr<Engine>* out);

}  // namespace iofab
