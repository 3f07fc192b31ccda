// GPU discovery. Built with CUDA, it asks the CUDA runtime; without CUDA, or
// with no driver or device, the list is empty and cuda_status() says why.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace iofab {

struct CudaDevice {
  int index = 0;
  std::string name;
  uint64_t memory_bytes = 0;
  std::string pci_bus_id;
};

std::vector<CudaDevice> list_cuda_devices();
// "3 CUDA devices", "no CUDA device: <runtime's reason>", "built without CUDA".
std::string cuda_status();

}  // namespace iofab
