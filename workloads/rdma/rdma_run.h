// The `rdma` phase's driver, on every rank, over any fabric: open it (or
// agree with every rank to skip, with one reason), make this rank's
// endpoints, exchange their addresses over the control plane, connect, then
// for each test (write, read, send) sweep the sizes, bandwidth then latency,
// every rank agreeing before each size to go on, so an error or a stop on
// one rank never leaves another spinning. The samples go to rank 0, which
// turns them into the phase's metrics.
#pragma once

#include <atomic>
#include <functional>
#include <memory>

#include "harness/comm/comm.h"
#include "harness/phase/phase.h"
#include "harness/rdma/fabric.h"
#include "workloads/rdma/rdma_spec.h"

namespace iofab {

// Opens this rank's fabric. Unavailable means "skip the phase, for this
// reason"; any other failure is an error.
using FabricOpener = std::function<Status(std::unique_ptr<RdmaFabric>*)>;

// The merged result is meaningful on rank 0 only.
Status run_rdma(const RdmaSpec& spec, Comm& comm, const FabricOpener& open, const std::atomic<bool>& stop,
                PhaseResult* result);

// Every rank's outcome of a step that may make the phase skip: Ok with
// *skip empty when every rank is fine; Ok with *skip set (the same on every
// rank) when some rank is Unavailable; the first other error otherwise.
// "rank N: " prefixes a reason that not every rank gave.
Status agree_skip_or_error(Comm& comm, const Status& mine, std::string* skip);

}  // namespace iofab
