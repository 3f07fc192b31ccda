// CUDA device memory for RDMA registration (GPUDirect RDMA). The buffer is
// cudaMalloc'ed on one device and zeroed; where the driver can export it as
// a dma-buf (cuMemGetHandleForAddressRange: kernel >= 5.12 and NVIDIA's open
// kernel modules), dmabuf_fd() gives the file descriptor for
// ibv_reg_dmabuf_mr; otherwise it is -1 and dmabuf_reason() says why, and
// registration falls back to ibv_reg_mr on the device pointer, which works
// when the nvidia-peermem module is loaded.
//
// Built with CUDA: gpu_memory_cuda.cc. Without: gpu_memory.cc, whose
// allocate() answers Unavailable("built without CUDA").
// Thread-safety: none needed; one owner.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "harness/core/status.h"

namespace iofab {

class GpuBuffer {
 public:
  GpuBuffer(const GpuBuffer&) = delete;
  GpuBuffer& operator=(const GpuBuffer&) = delete;
  ~GpuBuffer();

  // bytes of device memory on CUDA device `device` (modulo the device count,
  // so a host-local rank index can be passed as is). No device: Unavailable
  // with a reason starting "no CUDA device".
  static Status allocate(int device, size_t bytes, std::unique_ptr<GpuBuffer>* out);

  void* data() const { return data_; }
  size_t size() const { return size_; }
  int device() const { return device_; }
  int dmabuf_fd() const { return dmabuf_fd_; }
  const std::string& dmabuf_reason() const { return dmabuf_reason_; }

 private:
  GpuBuffer() = default;

  void* data_ = nullptr;
  size_t size_ = 0;
  int device_ = 0;
  int dmabuf_fd_ = -1;
  std::string dmabuf_reason_;
};

// "no CUDA device: <reason>" / "built without CUDA" when CUDA memory cannot
// be had on this rank; "" when it can.
std::string gpu_memory_unavailable_reason();

}  // namespace iofab
