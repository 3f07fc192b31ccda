#include "workloads/checkpoint/tier_results.h"

#include "workloads/checkpoint/folder_layout.h"

namespace iofab {

void fill_tier_metrics(const TierRun& t, double drained_bytes, double drain_seconds, PhaseResult* result) {
  auto& m = result->metrics;
  m["drain_bytes_per_s"] = drain_seconds > 0 ? drained_bytes / drain_seconds : 0.0;
  if (!t.recovery.measured) return;
  m["recovery_local_seconds"] = t.recovery.local_ns * 1e-9;
  m["recovery_shared_seconds"] = t.recovery.shared_ns * 1e-9;
  m["recovery_bytes"] = static_cast<double>(t.recovery.bytes);
}

void fill_tier_details(const CheckpointParams& p, const TierRun& t, PhaseResult* result) {
  nlohmann::json tier = {{"tier", "two"},
                         {"local_dir", p.local_dir},
                         {"local_folder_rank0", t.local_folder},
                         {"local_checkpoints_kept", 1},
                         {"commit_file", std::string(commit_file_name(p.layout))}};
  if (t.recovery.measured) {
    tier["recovery"] = {{"step", t.recovery.step},
                        {"bytes", t.recovery.bytes},
                        {"local_seconds", t.recovery.local_ns * 1e-9},
                        {"shared_seconds", t.recovery.shared_ns * 1e-9},
                        {"verify", "xxh3_every_byte"}};
  }
  result->details["tier"] = tier;
  result->details["stall_includes"] = nlohmann::json::array({"local_write", "local_fsync", "local_commit"});
  for (const std::string* note : {&t.recovery.local_cache_note, &t.recovery.shared_cache_note}) {
    if (note->empty()) continue;
    const std::string where = "(" + *note + ")";
    result->warnings.push_back(
        "recovery read part of a checkpoint from the page cache, which could not be dropped " + where +
        ": that tier's recovery time is a memory read, not a storage read");
  }
  if (!t.cleanup_problem.empty()) result->warnings.push_back(t.cleanup_problem);
}

}  // namespace iofab
