#include "workloads/calibration/probes.h"

#include "workloads/calibration/loader_costs.h"
#include "workloads/calibration/torch_costs.h"

namespace iofab {

std::span<const CalibrationProbe> calibration_probes() {
  static constexpr CalibrationProbe kProbes[] = {
      {.name = "loader",
       .script = "loader_probe.py",
       .section = kLoaderSection,
       .what = "torch.utils.data.DataLoader: per sample, per byte, collate, main process, worker start"},
      {.name = "torch_save",
       .script = "torch_save_probe.py",
       .section = kTorchSaveSection,
       .what =
           "torch.save per record and per byte; safetensors' load_file and a copy per tensor and per byte "
           "(also fills the safetensors section)"},
  };
  return kProbes;
}

}  // namespace iofab
