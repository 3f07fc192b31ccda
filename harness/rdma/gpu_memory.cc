// Without CUDA in the build there is no device memory to register.
#include "harness/rdma/gpu_memory.h"

#ifndef IOFAB_HAVE_CUDA
namespace iofab {

GpuBuffer::~GpuBuffer() = default;

Status GpuBuffer::allocate(int, size_t, std::unique_ptr<GpuBuffer>*) {
  return Status::Unavailable("built without CUDA");
}

std::string gpu_memory_unavailable_reason() { return "built without CUDA"; }

}  // namespace iofab
#endif
