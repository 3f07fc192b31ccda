// Without libibverbs in the build there is no fabric to open.
#include "harness/rdma/verbs_fabric.h"

#ifndef IOFAB_HAVE_IBVERBS
namespace iofab {

Status open_verbs_fabric(const FabricChoice&, std::unique_ptr<RdmaFabric>*) {
  return Status::Unavailable("built without libibverbs");
}

}  // namespace iofab
#endif
