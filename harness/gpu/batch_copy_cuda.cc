// Batch copies through the CUDA runtime: pinned host buffers (cudaHostAlloc),
// one device buffer, one non-blocking stream; cudaMemcpyAsync, then a
// stream synchronise, so copy() returns once the batch is on the device.
#include <cuda_runtime_api.h>

#include <string>
#include <utility>
#include <vector>

#include "harness/gpu/batch_copy.h"

namespace iofab {

namespace {

Status cuda_error(const std::string& what, cudaError_t e) {
  return Status::IoError(what + ": " + cudaGetErrorString(e));
}

}  // namespace

struct BatchCopier::Impl {
  std::vector<void*> host;
  void* device_buf = nullptr;
  cudaStream_t stream = nullptr;
  int device = 0;

  ~Impl() {
    // Everything belongs to `device`; make it current so the frees go to the right context.
    cudaSetDevice(device);
    if (stream != nullptr) {
      cudaStreamSynchronize(stream);
      cudaStreamDestroy(stream);
    }
    if (device_buf != nullptr) cudaFree(device_buf);
    for (void* p : host) {
      if (p != nullptr) cudaFreeHost(p);
    }
  }
};

BatchCopier::BatchCopier(size_t slots, size_t slot_bytes, int device, std::unique_ptr<Impl> impl)
    : slots_(slots), slot_bytes_(slot_bytes), device_(device), impl_(std::move(impl)) {}

BatchCopier::~BatchCopier() = default;

Status BatchCopier::create(size_t slots, size_t slot_bytes, int device, std::unique_ptr<BatchCopier>* out) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error so later calls are not poisoned
    return Status::Unavailable(std::string("no CUDA device: ") + cudaGetErrorString(e));
  }
  if (n == 0) return Status::Unavailable("no CUDA device");
  if (slots == 0 || slot_bytes == 0) return Status::Invalid("batch copier: slots and slot_bytes must be > 0");
  const int dev = (device < 0 ? 0 : device) % n;
  auto impl = std::make_unique<Impl>();
  impl->device = dev;
  if ((e = cudaSetDevice(dev)) != cudaSuccess)
    return cuda_error("cudaSetDevice(" + std::to_string(dev) + ")", e);
  impl->host.assign(slots, nullptr);
  for (size_t i = 0; i < slots; ++i) {
    if ((e = cudaHostAlloc(&impl->host[i], slot_bytes, cudaHostAllocDefault)) != cudaSuccess) {
      return cuda_error("cudaHostAlloc of " + std::to_string(slot_bytes) + " bytes", e);
    }
  }
  if ((e = cudaMalloc(&impl->device_buf, slot_bytes)) != cudaSuccess) {
    return cuda_error("cudaMalloc of " + std::to_string(slot_bytes) + " bytes", e);
  }
  if ((e = cudaStreamCreateWithFlags(&impl->stream, cudaStreamNonBlocking)) != cudaSuccess) {
    return cuda_error("cudaStreamCreate", e);
  }
  out->reset(new BatchCopier(slots, slot_bytes, dev, std::move(impl)));
  return Status::Ok();
}

void* BatchCopier::host(size_t i) const { return impl_->host[i]; }

Status BatchCopier::copy(size_t i, size_t bytes) {
  if (i >= slots_ || bytes > slot_bytes_) return Status::Invalid("batch copier: slot or size out of range");
  // The calling thread may not have made this device current yet.
  cudaError_t e = cudaSetDevice(impl_->device);
  if (e != cudaSuccess) return cuda_error("cudaSetDevice", e);
  e = cudaMemcpyAsync(impl_->device_buf, impl_->host[i], bytes, cudaMemcpyHostToDevice, impl_->stream);
  if (e != cudaSuccess) return cuda_error("cudaMemcpyAsync host to device", e);
  e = cudaStreamSynchronize(impl_->stream);
  if (e != cudaSuccess) return cuda_error("cudaStreamSynchronize", e);
  return Status::Ok();
}

}  // namespace iofab
