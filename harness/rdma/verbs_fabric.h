// The real fabric: libibverbs, reliable-connected queue pairs.
// Built with libibverbs: verbs_fabric_ibverbs.cc; without: verbs_fabric.cc,
// whose open answers Unavailable("built without libibverbs").
#pragma once

#include <memory>

#include "harness/rdma/fabric.h"

namespace iofab {

// Opens the device and port `choice` names (or the first active one). Where
// none can be used: Unavailable with the phase's skip reason ("no RDMA
// device (no /sys/class/infiniband entries)", libibverbs' own answer, "no
// active port on mlx5_0", ...).
Status open_verbs_fabric(const FabricChoice& choice, std::unique_ptr<RdmaFabric>* out);

}  // namespace iofab
