// Device memory through the CUDA runtime. The dma-buf export is a driver API
// call (cuMemGetHandleForAddressRange); libcuda may be absent where iofab is
// linked, so the entry point is asked of the runtime at run time instead of
// linked (cudaGetDriverEntryPointByVersion).
#include <cuda.h>  // types and enums only: nothing from libcuda is linked
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <string>

#include "harness/rdma/gpu_memory.h"

namespace iofab {
namespace {

// dma-buf wants page-aligned ranges; 2 MiB is the GPU's own page size, so a
// rounded allocation covers whole pages on both sides.
constexpr size_t kGpuPage = 2u << 20;

using GetHandleFn = CUresult (*)(void* handle, CUdeviceptr dptr, size_t size, CUmemRangeHandleType type,
                                 unsigned long long flags);

Status cuda_error(const std::string& what, cudaError_t e) {
  return Status::IoError(what + ": " + cudaGetErrorString(e));
}

}  // namespace

GpuBuffer::~GpuBuffer() {
  if (dmabuf_fd_ >= 0) close(dmabuf_fd_);
  if (data_ != nullptr) {
    cudaSetDevice(device_);
    cudaFree(data_);
  }
}

std::string gpu_memory_unavailable_reason() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error so later calls are not poisoned
    return std::string("no CUDA device: ") + cudaGetErrorString(e);
  }
  return n == 0 ? "no CUDA device" : "";
}

Status GpuBuffer::allocate(int device, size_t bytes, std::unique_ptr<GpuBuffer>* out) {
  const std::string why = gpu_memory_unavailable_reason();
  if (!why.empty()) return Status::Unavailable(why);
  int n = 0;
  cudaGetDeviceCount(&n);
  std::unique_ptr<GpuBuffer> b(new GpuBuffer());
  b->device_ = (device < 0 ? 0 : device) % n;
  b->size_ = (bytes + kGpuPage - 1) / kGpuPage * kGpuPage;
  cudaError_t e = cudaSetDevice(b->device_);
  if (e != cudaSuccess) return cuda_error("cudaSetDevice(" + std::to_string(b->device_) + ")", e);
  if ((e = cudaMalloc(&b->data_, b->size_)) != cudaSuccess) {
    b->data_ = nullptr;
    return cuda_error("cudaMalloc of " + std::to_string(b->size_) + " bytes", e);
  }
  if ((e = cudaMemset(b->data_, 0, b->size_)) != cudaSuccess) return cuda_error("cudaMemset", e);
  if ((e = cudaDeviceSynchronize()) != cudaSuccess) return cuda_error("cudaDeviceSynchronize", e);

  // The runtime does not expose the dma-buf support attribute; trying the export answers the same question.
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  e = cudaGetDriverEntryPointByVersion("cuMemGetHandleForAddressRange", &fn, 11070, cudaEnableDefault, &q);
  if (e != cudaSuccess || fn == nullptr || q != cudaDriverEntryPointSuccess) {
    cudaGetLastError();
    b->dmabuf_reason_ = "the driver has no cuMemGetHandleForAddressRange (older than CUDA 11.7)";
  } else {
    int fd = -1;
    const CUresult r = reinterpret_cast<GetHandleFn>(fn)(&fd, reinterpret_cast<CUdeviceptr>(b->data_),
                                                         b->size_, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
    if (r == CUDA_SUCCESS && fd >= 0) {
      b->dmabuf_fd_ = fd;
    } else {
      b->dmabuf_reason_ = "no dma-buf export (CUresult " + std::to_string(static_cast<int>(r)) +
                          "): needs kernel >= 5.12 and NVIDIA's open GPU kernel modules";
    }
  }
  *out = std::move(b);
  return Status::Ok();
}

}  // namespace iofab
