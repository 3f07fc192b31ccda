// A model in, every rank's tensors out: what each rank of a training job
// holds in its checkpoint, tensor by tensor, and their bytes, exactly. The
// checkpoint phase writes what this plans; `iofab plan --model/--preset`
// prints it. Later layouts (DCP, Megatron) name their files from the same
// lists. The formulas, with sources: docs/models.md.
//
// Rank r of tensor x pipeline x data ranks sits at tensor rank r % tensor,
// pipeline stage (r / tensor) % pipeline, data-parallel rank
// r / (tensor x pipeline), as Megatron and DLIO number them.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "workloads/checkpoint/model_spec.h"

namespace iofab {

// Which part of the model a tensor is. kDlioOptimizer: one of DLIO's optimizer groups (no architecture
// name); kDlioNormGroup: DLIO's small 5 x hidden group beside each.
enum class TensorPart {
  kEmbedding,
  kAttnNorm,
  kQ,
  kK,
  kV,
  kO,
  kMlpNorm,
  kGate,
  kUp,
  kDown,
  kFinalNorm,
  kOutput,
  kDlioQkv,
  kDlioUpGate,
  kDlioOptimizer,
  kDlioNormGroup,
};
// What the tensor holds of it.
enum class TensorState { kWeights, kMaster, kMoment1, kMoment2, kOptimizer };

// One tensor (or one rank's shard of one) in a rank's checkpoint.
struct RankTensor {
  TensorPart part = TensorPart::kEmbedding;
  TensorState state = TensorState::kWeights;
  int64_t layer =
      -1;  // transformer layer 0..layers-1; -1 outside the layers; DLIO's group index for its groups
  uint64_t elements = 0;  // on this rank
  uint32_t dtype_bytes = 0;
  // Where this piece sits in the whole tensor, seen as one row of its elements with every tensor rank's
  // piece after the one before (row-major for the column-parallel split): elements [offset, offset +
  // elements) of whole. A resharding restore maps new pieces onto old ones by these ranges. whole is 0
  // under DLIO's rules, whose rounded-down pieces do not add up to a tensor.
  uint64_t offset = 0;
  uint64_t whole = 0;
  uint64_t bytes() const { return elements * dtype_bytes; }
};
// Stable across ranks and parallelisms: the same tensor and state give the same key (content of a
// checkpoint's tensor derives from it, so a restore with another parallelism can verify its slices).
uint64_t tensor_key(const RankTensor& t);
// "layers.12.attn.q.weight", "embedding.exp_avg", "optimizer.group.2": a stable name for reports and layouts.
std::string tensor_name(const RankTensor& t);

struct RankPosition {
  uint64_t tensor = 0;    // tensor-parallel rank
  uint64_t pipeline = 0;  // pipeline stage
  uint64_t data = 0;      // data-parallel rank
};
RankPosition rank_position(const TransformerSpec& spec, uint64_t rank);

// Who writes state that several ranks hold the same copy of (a norm vector on every tensor rank; the
// weights below ZeRO 3 and the optimizer's state below ZeRO 1 on every data-parallel replica).
enum class ReplicaWriter {
  kFirst,     // the first holder (tensor rank 0, data-parallel rank 0): DCP's dedup up to 2.2; skewed
  kSpread,    // each copy to the holder with the fewest replicated bytes so far, largest first, as
              // Megatron's fully parallel save distributes them
  kAll,       // every holder writes its copy: no dedup
  kBalanced,  // PyTorch DCP's dedup since 2.3 (dedup_save_plans): each item, in the plans' order, to the
              // holder whose plan has the fewest bytes so far, the lowest rank on a tie
};
std::string_view replica_writer_name(ReplicaWriter w);

// Every tensor rank writes, in a stable order: the layers' weights first, then the optimizer's state.
// Empty for a rank that writes nothing (ZeRO 0 with kFirst: every data-parallel rank but the first).
// DLIO's rules know only kFirst.
std::vector<RankTensor> rank_tensors(const TransformerSpec& spec, uint64_t rank,
                                     ReplicaWriter writer = ReplicaWriter::kFirst);
uint64_t rank_bytes(const TransformerSpec& spec, uint64_t rank, ReplicaWriter writer = ReplicaWriter::kFirst);
// Every rank's tensors at once: one pass per pipeline stage (kSpread balances a stage's ranks together).
std::vector<std::vector<RankTensor>> all_rank_tensors(const TransformerSpec& spec, ReplicaWriter writer);

// The parameters the model has: the architecture's exact count, or DLIO's formula for kDlio.
uint64_t parameter_count(const TransformerSpec& spec);

// The whole job's checkpoint.
struct ModelPlan {
  uint64_t parameters = 0;
  uint64_t ranks = 0;
  std::vector<uint64_t> rank_bytes;  // one per rank, in rank order
  uint64_t total_bytes = 0;
  uint64_t weight_bytes = 0;     // the model's weights (every rank's share)
  uint64_t optimizer_bytes = 0;  // master weights and moments, or DLIO's groups
  uint64_t writing_ranks = 0;    // ranks with bytes to write
  ReplicaWriter replica_writer = ReplicaWriter::kFirst;
  // The largest rank's bytes / the mean over all ranks: 1 when balanced; data-parallel degree when one
  // replica writes everything.
  double skew() const;
};
ModelPlan plan_model(const TransformerSpec& spec, ReplicaWriter writer = ReplicaWriter::kFirst);
// {"parameters", "total_bytes", ..., "rank_bytes": [...]}.
nlohmann::json to_json(const ModelPlan& plan);

}  // namespace iofab
