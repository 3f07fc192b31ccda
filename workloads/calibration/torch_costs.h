// The calibration's "torch_save" and "safetensors" sections (probe torch_save_probe.py): what torch.save
// costs in CPU per record and per byte beyond iofab's own making of the same bytes, and what
// safetensors' load_file plus one copy of each tensor costs per tensor and per byte beyond iofab's own
// mapped copy. Each section holds python (the real software) and native (iofab's mechanics, as the probe
// approximates them: a copy of the bytes); the profiles spin the difference (spin = python - native, at
// least 0). Costs are CPU seconds.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "harness/core/status.h"
#include "workloads/calibration/calibration.h"

namespace iofab {

inline constexpr std::string_view kTorchSaveSection = "torch_save";
inline constexpr std::string_view kSafetensorsSection = "safetensors";

// per_item: a record (torch.save) or a tensor (safetensors); per_byte: a byte of it.
struct ItemCosts {
  double per_item_s = 0;
  double per_byte_s = 0;
  // The spin for items and bytes (seconds).
  double seconds(double items, double bytes) const { return items * per_item_s + bytes * per_byte_s; }
};

struct TorchCosts {
  ItemCosts python;
  ItemCosts native;
  ItemCosts spin() const;
  nlohmann::json to_json(std::string_view item_key) const;  // {"python": {...}, "native": ..., "spin": ...}
};

// Spends seconds of this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), as the real software spends its
// own: on a busy machine the wall time it takes stretches as the real software's would.
void spin_cpu(double seconds);

// Built-in: measured with the probe on the project's 2-core VM (docs/calibration.md,
// docs/checkpoint-layouts.md).
TorchCosts builtin_torch_save_costs();
TorchCosts builtin_safetensors_costs();

// The section of c (kTorchSaveSection: keys record_s, byte_s; kSafetensorsSection: tensor_s, byte_s), the
// built-in costs when c has none (*from_file says which). Errors name the field:
// "calibration file F: sections.torch_save.python.byte_s: expected a number >= 0 (CPU seconds)".
Status torch_costs(const Calibration& c, std::string_view section, TorchCosts* out, bool* from_file);

}  // namespace iofab
