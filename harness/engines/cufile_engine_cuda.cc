// The cufile engine's CUDA runtime side: device buffers and the host<->device
// copies that let phases fill and verify data on the host.
#include <cuda_runtime_api.h>

#include <string>

#include "harness/engines/cufile_engine.h"

namespace iofab::cufile_cuda {

namespace {

Status cuda_error(const std::string& what, cudaError_t e) {
  return Status::IoError(what + ": " + cudaGetErrorString(e));
}

}  // namespace

Status device_count(int* n) {
  *n = 0;
  const cudaError_t e = cudaGetDeviceCount(n);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error so later calls are not poisoned
    return Status::Unavailable(std::string("no CUDA device: ") + cudaGetErrorString(e));
  }
  if (*n == 0) return Status::Unavailable("no CUDA device");
  return Status::Ok();
}

Status use_device(int device) {
  const cudaError_t e = cudaSetDevice(device);
  if (e != cudaSuccess) return cuda_error("cudaSetDevice(" + std::to_string(device) + ")", e);
  // cuFile works in the driver's current context: make the primary context exist now.
  const cudaError_t f = cudaFree(nullptr);
  if (f != cudaSuccess) return cuda_error("CUDA context for device " + std::to_string(device), f);
  return Status::Ok();
}

Status alloc(size_t bytes, void** p) {
  *p = nullptr;
  const cudaError_t e = cudaMalloc(p, bytes);
  if (e != cudaSuccess) return cuda_error("cudaMalloc of " + std::to_string(bytes) + " bytes", e);
  return Status::Ok();
}

void release(void* p) {
  if (p != nullptr) cudaFree(p);
}

Status to_device(void* dst, const void* src, size_t n) {
  const cudaError_t e = cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice);
  if (e != cudaSuccess) return cuda_error("cudaMemcpy host to device", e);
  return Status::Ok();
}

Status to_host(void* dst, const void* src, size_t n) {
  const cudaError_t e = cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return cuda_error("cudaMemcpy device to host", e);
  return Status::Ok();
}

}  // namespace iofab::cufile_cuda
