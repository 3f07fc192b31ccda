#include "reports/phase_definitions.h"

#include <string_view>

#include "workloads/phase_table.h"

namespace iofab {
namespace {

using nlohmann::json;

const json* find_key(const json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::string text_of(const json* j) { return j != nullptr && j->is_string() ? j->get<std::string>() : ""; }

// "write + fsync + commit", naming each part as the checkpoint phase defines it.
std::string stall_parts(const json& parts) {
  std::string out;
  for (const auto& part : parts) {
    const std::string p = part.is_string() ? part.get<std::string>() : "";
    const std::string words = p == "staging_copy"   ? "the copy of every shard into host staging memory"
                              : p == "write"        ? "the write of every shard"
                              : p == "fsync"        ? "its fsync"
                              : p == "commit"       ? "the commit (manifest, fsyncs, rename)"
                              : p == "local_write"  ? "the write of every shard into local_dir"
                              : p == "local_fsync"  ? "its fsync"
                              : p == "local_commit" ? "the local commit (manifest, fsyncs, rename)"
                                                    : p;
    if (words.empty()) continue;
    out += (out.empty() ? "" : " + ") + words;
  }
  return out;
}

std::string checkpoint_definitions(const json& d) {
  std::string out;
  if (const json* parts = find_key(d, "stall_includes"); parts != nullptr && parts->is_array()) {
    const std::string what = stall_parts(*parts);
    if (!what.empty()) out += "The stall is " + what + ".";
    if (text_of(find_key(d, "mode")) == "async") out += " The write and its fsync drain in the background.";
    if (find_key(d, "tier") != nullptr) {
      out +=
          " A drain per rank copies each checkpoint from local_dir to the target in the background; it "
          "commits there once every rank's part is durable, or, when a drain outlasts the gap, before the "
          "next checkpoint (which waits for it). The recovery times read the newest checkpoint back from "
          "each tier, cache dropped, every byte verified.";
    }
  }
  const json* budget = find_key(d, "budget");
  if (text_of(budget != nullptr ? find_key(*budget, "projection_basis") : nullptr) ==
      "slowest_checkpoint_aggregate") {
    const json* writers = find_key(*budget, "projection_writers");
    out += std::string(out.empty() ? "" : " ") +
           "The projected stall is the full-size checkpoint's bytes over the aggregate bytes/s of this run's "
           "slowest checkpoint" +
           (writers != nullptr && writers->is_number() ? " (" + writers->dump() + " writers)" : "") +
           ", and the budget allows budget_fraction x interval: it assumes that bandwidth holds at full "
           "scale.";
  }
  return out;
}

std::string restore_definitions(const json& d) {
  const json* budget = find_key(d, "restore_budget");
  if (text_of(budget != nullptr ? find_key(*budget, "projection_basis") : nullptr) != "measured_read") return "";
  return "The projected restore is fanout x the full-size checkpoint's bytes over the read bytes/s measured "
         "here: it assumes that bandwidth holds at full scale.";
}

}  // namespace

std::string phase_definitions(const PhaseReport& phase) {
  const PhaseKind* kind = find_phase_kind(phase.kind);
  switch (kind == nullptr ? PhaseDefinitions::kNone : kind->definitions) {
    case PhaseDefinitions::kCheckpointStall:
      return checkpoint_definitions(phase.details);
    case PhaseDefinitions::kRestoreBudget:
      return restore_definitions(phase.details);
    case PhaseDefinitions::kNone:
      break;
  }
  return "";
}

}  // namespace iofab
