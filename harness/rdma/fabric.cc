#include "harness/rdma/fabric.h"

namespace iofab {

const char* rdma_memory_name(RdmaMemory m) { return m == RdmaMemory::kCuda ? "cuda" : "host"; }

}  // namespace iofab
