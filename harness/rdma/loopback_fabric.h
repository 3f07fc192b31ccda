// A fabric without a device: endpoints in one process (ranks as threads, in
// tests) reach each other through a shared LoopbackHub, and every work
// request takes effect at once as a memory copy under the hub's lock, with
// the completions a reliable-connected queue pair would give. A SEND that
// finds no receive posted waits for one, as RC's receiver-not-ready retry
// does. It exists so the `rdma` phase's logic runs in unit tests; its
// timings mean nothing.
//
// Thread-safety: the hub serialises every operation; each endpoint is still
// used by one thread at a time, as RdmaEndpoint requires.
#pragma once

#include <memory>

#include "harness/rdma/fabric.h"

namespace iofab {

class LoopbackHub;

std::shared_ptr<LoopbackHub> make_loopback_hub();
// host_visible = false makes endpoints behave as CUDA memory does for the
// CPU (no peek/poke), so the WRITE-with-immediate ping-pong path runs.
std::unique_ptr<RdmaFabric> make_loopback_fabric(std::shared_ptr<LoopbackHub> hub, bool host_visible = true);

}  // namespace iofab
