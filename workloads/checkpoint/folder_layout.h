// Where a checkpoint goes: the names inside a checkpoint phase's folder.
//
//   <run folder>/<phase>/step-N/shard-SSSSS-of-TTTTT.bin   a committed step (N from 1)
//                        step-N/manifest.json              written last, before the commit
//                        step-N.tmp/                       a step being written, until its commit
//                                                          renames it; left by an interrupted run,
//                                                          it is never a checkpoint
//
// Layout dcp writes in place, as PyTorch's FileSystemWriter does: step-N/__R_I.distcp, and
// step-N/.metadata, written last by the coordinator (through .metadata.tmp and a rename), is the
// commit; a step-N/ without it is never a checkpoint. Layout megatron, as Megatron-LM's save_checkpoint
// writes (commit "megatron", its default): iter_NNNNNNN/mp_rank_TT[_PPP]/{distrib_optim.pt,
// model_optim_rng.pt} in place, no fsync, then iofab's manifest.json (which restore reads) and
// <phase>/latest_checkpointed_iteration.txt, rewritten in place by rank 0; with commit "durable",
// iofab's protocol: step-N.tmp/mp_rank_.../ fsynced and renamed as shards are, the tracker replaced by
// a rename.
//
// Pure names, no I/O: the folder operations are in phase_folder.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace iofab {

inline constexpr std::string_view kCheckpointManifestName = "manifest.json";
inline constexpr std::string_view kDcpMetadataName = ".metadata";
// Layout megatron: in the phase folder, the newest committed step's number, as Megatron-LM's
// latest_checkpointed_iteration.txt holds its newest iteration.
inline constexpr std::string_view kMegatronTrackerName = "latest_checkpointed_iteration.txt";

// How a checkpoint's files are named and committed (checkpoint_files.h).
// kTorchSave: torch.save(state_dict, "rank_R.pt"), one file a rank (torch_framing.h); committed as shards.
enum class CheckpointLayoutKind { kShards, kDcp, kMegatron, kTorchSave };
// How a step is made a checkpoint: kDurable, iofab's protocol (every file fsynced, the folder renamed or,
// dcp, .metadata renamed, every folder synced); kMegatron, Megatron-LM's torch.save (iter_NNNNNNN/
// written in place, no fsync, the tracker rewritten in place), whose durability comes later, apart.
enum class CommitMode { kDurable, kMegatron };
std::string_view layout_kind_name(CheckpointLayoutKind k);
// The manifest's name in a step folder: .metadata for dcp, whose presence commits the step.
std::string_view commit_file_name(CheckpointLayoutKind k);
// Whether layout k writes into step-N/ itself (dcp) rather than step-N.tmp/.
inline bool writes_in_place(CheckpointLayoutKind k) { return k == CheckpointLayoutKind::kDcp; }

std::string step_dir_name(uint64_t step);
std::string step_tmp_name(uint64_t step);
// Megatron-LM's iteration folder: "iter_0000012" (get_checkpoint_name's 'iter_{:07d}').
std::string megatron_iter_name(uint64_t step);
// A committed step's folder: megatron_iter_name under commit kMegatron, else step_dir_name.
inline std::string step_folder_name(uint64_t step, CommitMode c) {
  return c == CommitMode::kMegatron ? megatron_iter_name(step) : step_dir_name(step);
}
// "step-12" or "iter_0000012" -> 12; nullopt for anything else (including "step-12.tmp").
std::optional<uint64_t> parse_step_dir_name(std::string_view name);

// "shard-00003-of-00016.bin": shard 3 of a checkpoint of 16 shards.
std::string shard_file_name(uint64_t shard, uint64_t shards);
// A shard name must stay inside its folder: at most one sub-folder ("mp_rank_00/distrib_optim.pt"),
// no part empty, "." or "..", no control characters, each part at most 255 bytes, not a manifest.
bool is_safe_shard_name(std::string_view name);

}  // namespace iofab
