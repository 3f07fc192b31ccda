// GPU discovery through the CUDA runtime.
#include <cuda_runtime_api.h>

#include "harness/gpu/devices.h"

namespace iofab {

std::vector<CudaDevice> list_cuda_devices() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error so later calls are not poisoned
    return {};
  }
  std::vector<CudaDevice> out;
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    char bus[32] = {};
    cudaDeviceGetPCIBusId(bus, sizeof bus, i);
    out.push_back({i, prop.name, static_cast<uint64_t>(prop.totalGlobalMem), bus});
  }
  return out;
}

std::string cuda_status() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::string("no CUDA device: ") + cudaGetErrorString(e);
  }
  if (n == 0) return "no CUDA device";
  return std::to_string(n) + " CUDA device" + (n == 1 ? "" : "s");
}

}  // namespace iofab
