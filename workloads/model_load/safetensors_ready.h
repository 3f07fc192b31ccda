// Ready as safetensors defines it: what `safetensors.torch.load_file(path)` then one copy of every tensor
// costs, beside iofab's own verified read. safetensors' Python binding (bindings/python/src/lib.rs,
// safe_open::new and get_tensor) maps the file (memmap2, and with torch >= 1.11
// torch.ByteStorage.from_file(path, shared=False): a private mapping), reads the 8-byte header length and
// parses the JSON header, and load_file makes each tensor, in safe_open.keys()' sorted-name order, a view
// over the mapping (storage[a:b] -> asarray -> view(dtype) -> reshape): nothing is read until a tensor is
// touched. Materializing each tensor (a copy into fresh host memory, or to the device where there is one)
// is what faults its pages in from storage. Per replica here: open, mmap(MAP_PRIVATE), the header parsed,
// then per tensor in name order a fresh buffer and a memcpy out of the mapping, plus the calibration's
// CPU cost per tensor and per byte beyond that copy (torch_costs.h, section safetensors).
//
// Thread-safety: one call per replica thread; the files are only read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "harness/phase/phase.h"
#include "workloads/calibration/torch_costs.h"
#include "workloads/model_load/weights.h"

namespace iofab {

struct SafetensorsLoad {
  uint64_t ready_ns = 0;  // from t0 to the last tensor copied; 0: not ready
  uint64_t tensors = 0;   // tensors materialized
  uint64_t bytes = 0;     // their bytes copied
  std::string error;      // why not ready
};

// Loads every file of folder as load_file does and copies every tensor once. A store without file
// descriptors (an object store) has nothing to map: error says so and nothing is loaded.
Status safetensors_load(const PhaseContext& ctx, const std::string& folder,
                        const std::vector<WeightFile>& files, const ItemCosts& spin, uint64_t t0,
                        SafetensorsLoad* out);

}  // namespace iofab
