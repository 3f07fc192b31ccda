#include "workloads/checkpoint/torch_details.h"

#include <nlohmann/json.hpp>

namespace iofab {

void describe_torch_layout(const CheckpointParams& p, const ShardLayout& l, PhaseResult* result) {
  const bool dcp = p.layout == CheckpointLayoutKind::kDcp;
  if (l.files.empty() || (!dcp && p.layout != CheckpointLayoutKind::kTorchSave)) return;
  uint64_t file_bytes = 0;
  uint64_t record_bytes = 0;
  uint64_t records = 0;
  for (const PlannedFile& f : l.files) {
    file_bytes += f.bytes;
    records += f.records.size();
    for (const FileRecord& r : f.records) record_bytes += r.bytes;
  }
  nlohmann::json& layout = result->details["layout"];
  layout["framing"] = p.raw_records ? "none" : "torch";
  // What the files hold beyond the tensors' bytes: torch.save's zip entries, data.pkl, central directory.
  layout["torch_framing_bytes"] = file_bytes - record_bytes;
  if (dcp) {
    // smallest first: DCP's _OverlappingCpuLoader on a machine with CUDA; state_dict: without CUDA,
    // PyTorch 1.13's writer, async_save.
    layout["record_order"] = p.state_dict_order ? "state_dict" : "size";
    if (!p.raw_records) layout["dcp_metadata_bytes"] = p.dcp_metadata_bytes;
  }
  if (!p.serialize) return;
  const ItemCosts spin = p.serialize_costs.spin();
  result->details["serialization"] = {
      {"emulates", "torch.save (PyTorch 1.13.1): pickling and zip framing per record, crc32 per byte"},
      {"costs", p.serialize_costs.to_json("record_s")},
      {"costs_from", p.costs_from_file ? "calibration file" : "built-in defaults"},
      {"calibration", p.calibration.provenance()},
      {"records", records},
      {"spin_seconds_per_checkpoint",
       spin.seconds(static_cast<double>(records), static_cast<double>(record_bytes))}};
}

}  // namespace iofab
