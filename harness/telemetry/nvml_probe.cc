#include "harness/telemetry/nvml_probe.h"

#include <dlfcn.h>

namespace iofab {

// NVML's C API, the few calls used, by the signatures of nvml.h (stable since NVML 5; the _v2
// entry points are the ones current drivers export).
struct NvmlProbe::Api {
  using Device = void*;
  struct Utilization {
    unsigned gpu, memory;
  };
  struct Memory {
    unsigned long long total, free, used;
  };
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*count)(unsigned*) = nullptr;
  int (*handle)(unsigned, Device*) = nullptr;
  int (*utilization)(Device, Utilization*) = nullptr;
  int (*memory)(Device, Memory*) = nullptr;
  int (*pcie)(Device, int, unsigned*) = nullptr;  // counter 0: TX, 1: RX, in KB/s
};

NvmlProbe::NvmlProbe() {
  handle_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* e = dlerror();
    reason_ = std::string("NVML not loaded (") + (e != nullptr ? e : "libnvidia-ml.so.1 not found") +
              "): no NVIDIA driver on this host";
    return;
  }
  api_ = std::make_unique<Api>();
  auto sym = [&](const char* name, auto* fn) {
    *reinterpret_cast<void**>(fn) = dlsym(handle_, name);
    return *fn != nullptr;
  };
  const bool ok = sym("nvmlInit_v2", &api_->init) && sym("nvmlShutdown", &api_->shutdown) &&
                  sym("nvmlDeviceGetCount_v2", &api_->count) &&
                  sym("nvmlDeviceGetHandleByIndex_v2", &api_->handle) &&
                  sym("nvmlDeviceGetUtilizationRates", &api_->utilization) &&
                  sym("nvmlDeviceGetMemoryInfo", &api_->memory) &&
                  sym("nvmlDeviceGetPcieThroughput", &api_->pcie);
  if (!ok || api_->init() != 0) {
    reason_ = ok ? "NVML present but nvmlInit failed (driver not loaded?)" : "NVML lacks a call iofab needs";
    api_.reset();
    dlclose(handle_);
    handle_ = nullptr;
  }
}

NvmlProbe::~NvmlProbe() {
  // NVML counts its users: each init wants its shutdown.
  if (api_ != nullptr) api_->shutdown();
  if (handle_ != nullptr) dlclose(handle_);
}

std::vector<GpuCounters> NvmlProbe::read() {
  std::vector<GpuCounters> out;
  unsigned n = 0;
  if (api_ == nullptr || api_->count(&n) != 0) return out;
  for (unsigned i = 0; i < n; ++i) {
    Api::Device d = nullptr;
    if (api_->handle(i, &d) != 0) continue;
    GpuCounters g;
    g.index = i;
    Api::Utilization u{};
    if (api_->utilization(d, &u) == 0) g.util = u.gpu / 100.0;
    Api::Memory m{};
    if (api_->memory(d, &m) == 0) g.memory_used = m.used;
    unsigned kbs = 0;
    if (api_->pcie(d, 0, &kbs) == 0) g.pcie_tx_bps = kbs * 1024.0;
    if (api_->pcie(d, 1, &kbs) == 0) g.pcie_rx_bps = kbs * 1024.0;
    out.push_back(g);
  }
  return out;
}

}  // namespace iofab
