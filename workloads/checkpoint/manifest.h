// The checkpoint manifest: what a committed step-N/ folder holds, written
// last (before the rename that commits the step) as frameworks write theirs.
// It lists every shard file with its size and XXH3-64 of its bytes
// (xxh3.h), so a restore, on this host or another, can verify every byte it
// reads and name the shard that is missing, short or corrupt.
//
// The format only: text to and from a Manifest. Writing and reading the file
// are in checkpoint/phase_folder.h and restore/checkpoint_source.h.
//
// Thread-safety: free functions are reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.h"
#include "harness/engines/data_fill.h"
#include "workloads/checkpoint/checkpoint_files.h"

namespace iofab {

inline constexpr std::string_view kCheckpointManifestFormat = "iofab-checkpoint";
inline constexpr int kManifestVersion = 1;

struct ShardEntry {
  std::string name;  // a plain file name in the step folder
  uint64_t bytes = 0;
  uint64_t xxh3 = 0;  // XXH3-64 of the file's bytes
  int rank = -1;      // the writer, for people reading the manifest; -1 unknown
  int worker = -1;
  // From a model (layout dcp or megatron): the planned rank whose file it is, and its tensors, by
  // which a restore reads slices and weights alone.
  int64_t plan_rank = -1;
  std::vector<FileRecord> records;
};

struct Manifest {
  uint64_t step = 0;
  std::string phase;                 // the checkpoint phase that wrote it
  std::string created;               // RFC 3339, UTC
  uint64_t committed_unix_ns = 0;    // orders checkpoints of one run: the newest is the nearest earlier phase
  double full_checkpoint_bytes = 0;  // the full-size model's checkpoint (before scale); 0: the shards' total
  double scale = 1;                  // full size / written size, as the checkpoint phase ran
  std::vector<ShardEntry> shards;
  CheckpointLayoutKind layout = CheckpointLayoutKind::kShards;
  // Layouts with records: the model they were planned from, and the seed of their content
  // (tensor_content.h), so any slice can be made again and compared.
  std::optional<TransformerSpec> model;
  std::string replica_writer;
  uint64_t seed = 0;
  Reducibility reduce;  // the content's compressibility and dedup (absent from the file: none)
  // Not in the text: the bytes the file is padded to with spaces (dcp: DCP's pickled .metadata's size,
  // dcp_metadata.h), so the commit writes what DCP's would; 0: none.
  uint64_t pad_to = 0;

  uint64_t total_bytes() const;
  // full_checkpoint_bytes, or the shards' total when it was not recorded.
  double full_bytes() const;
};

std::string manifest_to_json_text(const Manifest& m);
// Validates everything a restore relies on; an error names the field,
// e.g. "shards[3].xxh3: expected 16 hex digits, got \"xyz\"".
Status parse_manifest(std::string_view text, Manifest* out);

}  // namespace iofab
