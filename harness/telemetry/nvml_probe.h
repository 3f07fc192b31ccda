// GPU counters through NVML, loaded at run time with dlopen (libnvidia-ml.so.1 ships with the driver,
// not the toolkit): utilisation, memory used, PCIe throughput per GPU. Where NVML is absent (no
// driver, a machine without GPUs) it says why and the sampler goes on without GPUs.
//
// Thread-safety: one NvmlProbe is used by one thread (the sampler's).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace iofab {

struct GpuCounters {
  unsigned index = 0;
  double util = 0;            // fraction of the last sample period the GPU ran a kernel
  uint64_t memory_used = 0;   // bytes
  double pcie_rx_bps = 0;     // bytes/s over NVML's own ~20 ms window
  double pcie_tx_bps = 0;
};

class NvmlProbe {
 public:
  NvmlProbe();
  ~NvmlProbe();
  NvmlProbe(const NvmlProbe&) = delete;
  NvmlProbe& operator=(const NvmlProbe&) = delete;

  bool available() const { return handle_ != nullptr; }
  const std::string& skip_reason() const { return reason_; }  // when not available
  std::vector<GpuCounters> read();

 private:
  void* handle_ = nullptr;  // the dlopen handle, null when unavailable
  std::string reason_;
  struct Api;
  std::unique_ptr<Api> api_;
};

}  // namespace iofab
