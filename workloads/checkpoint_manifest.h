// The checkpoint manifest: what a committed step-N/ folder holds, written
// last (before the rename that commits the step) as frameworks write theirs.
// It lists every shard file with its size and XXH3-64 of its bytes, so a
// restore, on this host or another, can verify every byte it reads and name
// the shard that is missing, short or corrupt. The hash is the plain
// XXH3-64 (seed 0) of the whole file: `xxhsum -H3 FILE` prints the same.
//
// Thread-safety: free functions are reentrant; a StreamingXxh3 is owned by
// one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.h"

namespace iofab {

inline constexpr std::string_view kManifestName = "manifest.json";
inline constexpr std::string_view kManifestFormat = "iofab-checkpoint";
inline constexpr int kManifestVersion = 1;

struct ShardEntry {
  std::string name;  // a plain file name in the step folder
  uint64_t bytes = 0;
  uint64_t xxh3 = 0;  // XXH3-64 of the file's bytes
  int rank = -1;      // the writer, for people reading the manifest; -1 unknown
  int worker = -1;
};

struct Manifest {
  uint64_t step = 0;
  std::string phase;                 // the checkpoint phase that wrote it
  std::string created;               // RFC 3339, UTC
  uint64_t committed_unix_ns = 0;    // orders checkpoints of one run: the newest is the nearest earlier phase
  double full_checkpoint_bytes = 0;  // the full-size model's checkpoint (before scale); 0: the shards' total
  double scale = 1;                  // full size / written size, as the checkpoint phase ran
  std::vector<ShardEntry> shards;

  uint64_t total_bytes() const;
  // full_checkpoint_bytes, or the shards' total when it was not recorded.
  double full_bytes() const;
};

// Streaming XXH3-64: fed block by block as the bytes are written or read,
// so hashing never costs a second pass over the data.
class StreamingXxh3 {
 public:
  StreamingXxh3();
  ~StreamingXxh3();
  StreamingXxh3(const StreamingXxh3&) = delete;
  StreamingXxh3& operator=(const StreamingXxh3&) = delete;

  void reset();
  void update(const void* data, size_t len);
  uint64_t digest() const;

 private:
  void* state_;  // XXH3_state_t, kept out of this header
};

// XXH3-64 of a buffer in one call (tests, small files).
uint64_t xxh3_of(const void* data, size_t len);
// 16 lowercase hex digits, as xxhsum prints them.
std::string xxh3_hex(uint64_t h);
std::optional<uint64_t> parse_xxh3_hex(std::string_view text);
// A shard name must stay inside its folder: no '/', not "." or "..", no
// control characters, at most 255 bytes, not the manifest itself.
bool is_safe_shard_name(std::string_view name);

std::string manifest_to_json_text(const Manifest& m);
// Validates everything a restore relies on; an error names the field,
// e.g. "shards[3].xxh3: expected 16 hex digits, got \"xyz\"".
Status parse_manifest(std::string_view text, Manifest* out);

// The on-disk layout of a checkpoint phase's folder: committed steps are
// step-N/ (N from 1), a step being written is step-N.tmp/ until its commit
// renames it; a .tmp left by an interrupted run is never a checkpoint.
std::string step_dir_name(uint64_t step);
std::string step_tmp_name(uint64_t step);
// "step-12" -> 12; nullopt for anything else (including "step-12.tmp").
std::optional<uint64_t> parse_step_dir_name(std::string_view name);

struct StepListing {
  std::vector<uint64_t> committed;  // ascending
  std::vector<std::string> tmp;     // names of step-*.tmp folders
};
// Lists dirfd's step folders (no symlink followed; other entries ignored).
Status list_steps_at(int dirfd, StepListing* out);

// Creates kManifestName under dirfd (never overwriting), writes it and
// fsyncs it. The caller fsyncs the folder.
Status write_manifest_at(int dirfd, const Manifest& m);
// Reads and validates kManifestName under dirfd; where names the folder in messages.
Status read_manifest_at(int dirfd, std::string_view where, Manifest* m);

}  // namespace iofab
