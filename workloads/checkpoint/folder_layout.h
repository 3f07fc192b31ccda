// Where a checkpoint goes: the names inside a checkpoint phase's folder.
//
//   <run folder>/<phase>/step-N/shard-SSSSS-of-TTTTT.bin   a committed step (N from 1)
//                        step-N/manifest.json              written last, before the commit
//                        step-N.tmp/                       a step being written, until its commit
//                                                          renames it; left by an interrupted run,
//                                                          it is never a checkpoint
//
// Pure names, no I/O: the folder operations are in phase_folder.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace iofab {

inline constexpr std::string_view kManifestName = "manifest.json";

std::string step_dir_name(uint64_t step);
std::string step_tmp_name(uint64_t step);
// "step-12" -> 12; nullopt for anything else (including "step-12.tmp").
std::optional<uint64_t> parse_step_dir_name(std::string_view name);

// "shard-00003-of-00016.bin": shard 3 of a checkpoint of 16 shards.
std::string shard_file_name(uint64_t shard, uint64_t shards);
// A shard name must stay inside its folder: no '/', not "." or "..", no
// control characters, at most 255 bytes, not the manifest itself.
bool is_safe_shard_name(std::string_view name);

}  // namespace iofab
