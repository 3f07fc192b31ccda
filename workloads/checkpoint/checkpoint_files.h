// The files a model's checkpoint is made of, tensor by tensor, as the real
// writers lay them out (`layout`):
//
//   dcp       PyTorch Distributed Checkpoint (torch/distributed/checkpoint/filesystem.py):
//             every rank writes __<rank>_<i>.distcp, i = 0 .. threads - 1 (one file per writer
//             thread), each even when it holds nothing; with more than one file each tensor goes,
//             largest first, to the file with the fewest bytes so far (_split_by_size_and_type).
//             With one file and a synchronous save, the tensors go smallest first (the
//             _OverlappingCpuLoader sorts them by size, a stable sort); staged (async_save), in the
//             plan's order. The coordinator's .metadata is the commit.
//   megatron  Megatron-LM's per-rank format (megatron/training/checkpointing.py): a folder
//             mp_rank_TT (mp_rank_TT_PPP with pipeline stages) per tensor x pipeline rank, written
//             by its first data-parallel rank: model_optim_rng.pt holds the model's weights (and
//             the optimizer's state when it is not distributed); with ZeRO >= 1 (the distributed
//             optimizer) distrib_optim.pt, written first as save_checkpoint does, holds the master
//             weights and both moments gathered from every data-parallel rank, each state's tensors
//             in reverse order as Megatron's grad buffers keep them.
//
//   torch_save torch.save(state_dict, "rank_R.pt") on every rank that holds something: one zip archive
//             (torch_framing.h) of the rank's tensors in the state dict's order; the records lie in it in
//             torch's storage-key order ("0", "1", "10", "100", ..., "2", ...).
//
// Each tensor is one record inside its file. dcp frames every record as torch.save frames a bare tensor
// (DCP's _write_item), so each record's bytes follow its own archive's header and data.pkl; raw: the
// records back to back instead (iofab before torch's framing). With a scale, every tensor's
// bytes are divided by it the same way whatever the parallelism (a piece keeps the bytes
// [offset / scale, (offset + bytes) / scale) of its whole tensor, rounded down), so a restore
// with another parallelism finds the same bytes at the same places. Pure: no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/checkpoint/folder_layout.h"
#include "workloads/checkpoint/model_spec.h"
#include "workloads/checkpoint/tensor_plan.h"

namespace iofab {

// One tensor piece inside a file.
struct FileRecord {
  std::string tensor;  // tensor_name()
  uint64_t key = 0;    // tensor_key(): its content's identity
  uint64_t file_offset = 0;
  uint64_t bytes = 0;
  uint64_t tensor_offset = 0;  // where the piece starts in the whole tensor, bytes
  uint64_t tensor_bytes = 0;   // the whole tensor's bytes; 0 unknown (DLIO's rules)
  bool weights = false;        // model weights (not optimizer state)
  // As planned (not kept in a manifest): the element's bytes, and where the record's framing starts and
  // its framed bytes (dcp: its torch.save archive; else the record itself).
  uint32_t dtype_bytes = 0;
  uint64_t frame_offset = 0;
  uint64_t frame_bytes = 0;
};

struct PlannedFile {
  std::string path;  // below the step folder: "__3_0.distcp", "mp_rank_01_000/distrib_optim.pt"
  uint64_t plan_rank = 0;
  std::vector<FileRecord> records;
  uint64_t bytes = 0;  // the records' sum, padded to 4 KiB when aligned (O_DIRECT)
};

// The files of spec's checkpoint in layout (dcp or megatron), in the order of the planned ranks that
// write them. threads: files per rank (dcp); staged: an async save (dcp's file order). A megatron file
// without a record is left out; every dcp file is there, empty or not.
std::vector<PlannedFile> plan_checkpoint_files(const TransformerSpec& spec, ReplicaWriter writer,
                                               CheckpointLayoutKind layout, unsigned threads, double scale,
                                               bool align, bool staged = false, bool raw = false);
// torch_save's file of planned rank r: "rank_<r>.pt" (its archive's name is "rank_<r>").
std::string torch_save_file_name(uint64_t rank);

// A piece of a tensor with [offset, offset + bytes) of it, scaled as the files scale it.
struct ScaledSpan {
  uint64_t offset = 0;
  uint64_t bytes = 0;
};
ScaledSpan scaled_span(const RankTensor& t, double scale);

}  // namespace iofab
