// Who reads what when a restore loads tensors rather than whole files
// (`read: tensors`, `reshard_to`, `weights_only`): every rank of the job
// being restored (the checkpoint's model, with reshard_to's parallelism when
// given) needs its piece of every tensor it holds, and finds it in the
// checkpoint's records (checkpoint_files.h), wherever the writers put it: a
// new piece may span several old ones, and start or end inside one, so it
// is read as slices of records. Planned rank R reads on reader R mod
// (ranks x workers); reader g is rank g % ranks, worker g / ranks. Each
// reader's slices are grouped by file and sorted by offset, as PyTorch
// DCP's FileSystemReader reads them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "workloads/checkpoint/manifest.h"
#include "workloads/checkpoint/model_spec.h"

namespace iofab {

// Bytes [file_offset, file_offset + bytes) of shard, which hold bytes [tensor_offset, + bytes) of the
// tensor whose content key is key.
struct SliceRead {
  size_t shard = 0;
  uint64_t file_offset = 0;
  uint64_t bytes = 0;
  uint64_t key = 0;
  uint64_t tensor_offset = 0;
  bool partial = false;  // less than the whole record: a read inside a tensor
};

struct SlicePlan {
  std::vector<std::vector<SliceRead>> per_worker;  // this rank's workers
  uint64_t bytes = 0;                              // this rank reads
  uint64_t slices = 0;                             // this rank's
  uint64_t partial = 0;                            // of those, inside a record
  uint64_t all_bytes = 0;                          // every rank's, the whole job's restore
  uint64_t all_slices = 0;
  uint64_t all_partial = 0;
};

// The parallelism a restore loads the checkpoint with: the saved model's, changed by reshard_to's
// fields (tensor, pipeline, data, zero). Errors name `field` (e.g. "phases[1].reshard_to").
Status restore_target(const Manifest& m, const nlohmann::json* reshard_to, const std::string& field,
                      TransformerSpec* out);
// This rank's slices. Fails, naming the tensor, when the checkpoint lacks a byte some rank needs.
Status plan_slice_reads(const Manifest& m, const TransformerSpec& target, bool weights_only, int rank,
                        int ranks, unsigned workers, SlicePlan* out);

}  // namespace iofab
