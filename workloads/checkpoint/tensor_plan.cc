#include "workloads/checkpoint/tensor_plan.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace iofab {

namespace {

// Part i of n things split into parts as evenly as whole numbers allow: the first n % parts get one more.
// The parts always add up to n, so no element is lost or counted twice.
uint64_t share(uint64_t n, uint64_t parts, uint64_t i) { return n / parts + (i < n % parts ? 1 : 0); }

struct LayerRange {
  uint64_t first = 0;
  uint64_t count = 0;
};
// The transformer layers of pipeline stage s: contiguous, the first layers % pipeline stages one more.
LayerRange stage_layers(const TransformerSpec& s, uint64_t stage) {
  const uint64_t base = s.layers / s.pipeline;
  const uint64_t extra = s.layers % s.pipeline;
  return {stage * base + std::min(stage, extra), base + (stage < extra ? 1 : 0)};
}

void push(std::vector<RankTensor>* out, TensorPart part, TensorState state, int64_t layer, uint64_t elements,
          Dtype dtype) {
  if (elements == 0 || dtype == Dtype::kNone) return;
  out->push_back({part, state, layer, elements, dtype_bytes(dtype)});
}

// The architecture's tensors on this rank. Tensor parallelism splits q, k, v, gate, up, the embedding and
// the output by rows (column-parallel, vocab-parallel) and o and down by columns (row-parallel); the
// norm vectors are replicated on every tensor rank and written once, by tensor rank 0, as Megatron's
// distributed checkpoint keeps one replica. ZeRO then splits each tensor's elements over the
// data-parallel ranks: the optimizer's state from stage 1, the weights too at stage 3; what is not
// split is written by data-parallel rank 0 alone.
void exact_tensors(const TransformerSpec& s, const RankPosition& pos, std::vector<RankTensor>* out) {
  struct Piece {
    TensorPart part;
    int64_t layer;
    uint64_t elements;  // on this tensor rank, before the data-parallel split
  };
  std::vector<Piece> pieces;
  const uint64_t h = s.hidden;
  const uint64_t hd = s.head_dim();
  auto column = [&](uint64_t rows, uint64_t cols) { return share(rows, s.tensor, pos.tensor) * cols; };
  auto row = [&](uint64_t rows, uint64_t cols) { return rows * share(cols, s.tensor, pos.tensor); };
  auto replicated = [&](uint64_t n) { return pos.tensor == 0 ? n : 0; };
  if (pos.pipeline == 0) pieces.push_back({TensorPart::kEmbedding, -1, column(s.vocab, h)});
  const LayerRange lr = stage_layers(s, pos.pipeline);
  for (uint64_t i = lr.first; i < lr.first + lr.count; ++i) {
    const auto l = static_cast<int64_t>(i);
    pieces.push_back({TensorPart::kAttnNorm, l, replicated(h)});
    pieces.push_back({TensorPart::kQ, l, column(s.heads * hd, h)});
    pieces.push_back({TensorPart::kK, l, column(s.kv_heads * hd, h)});
    pieces.push_back({TensorPart::kV, l, column(s.kv_heads * hd, h)});
    pieces.push_back({TensorPart::kO, l, row(h, s.heads * hd)});
    pieces.push_back({TensorPart::kMlpNorm, l, replicated(h)});
    pieces.push_back({TensorPart::kGate, l, column(s.ffn, h)});
    pieces.push_back({TensorPart::kUp, l, column(s.ffn, h)});
    pieces.push_back({TensorPart::kDown, l, row(h, s.ffn)});
  }
  if (pos.pipeline == s.pipeline - 1) {
    pieces.push_back({TensorPart::kFinalNorm, -1, replicated(h)});
    // Tied: the output layer is the embedding, stored once with it.
    if (!s.tied_embeddings) pieces.push_back({TensorPart::kOutput, -1, column(s.vocab, h)});
  }
  auto split = [&](uint64_t n, bool sharded) {
    if (sharded) return share(n, s.data, pos.data);
    return pos.data == 0 ? n : 0;
  };
  for (const Piece& p : pieces)
    push(out, p.part, TensorState::kWeights, p.layer, split(p.elements, s.zero >= 3), s.weights);
  for (const Piece& p : pieces) {
    const uint64_t n = split(p.elements, s.zero >= 1);
    push(out, p.part, TensorState::kMaster, p.layer, n, s.master);
    push(out, p.part, TensorState::kMoment1, p.layer, n, s.moments);
    push(out, p.part, TensorState::kMoment2, p.layer, n, s.moments);
  }
}

// DLIO's rules (dlio_benchmark/checkpointing/base_checkpointing.py), restated: its layer indices are
// 0 the embedding, 1..layers the transformer layers, layers + 1 the output and layers + 2 the final
// norm; each pipeline stage takes a contiguous run of transformer layers (the first layers % pipeline
// stages one more), stage 0 adds index 0 and the last stage everything past its run. Every size is
// rounded down by tensor and by the ZeRO-3 data-parallel split in turn. Below ZeRO 3 only the first
// data-parallel replica writes weights; its three optimizer groups of parameters / ranks (parameters /
// (tensor x pipeline) at ZeRO 0, then on the first replica only) each carry a 5 x hidden group.
void dlio_tensors(const TransformerSpec& s, const RankPosition& pos, std::vector<RankTensor>* out) {
  const uint64_t h = s.hidden;
  const uint64_t dkv = s.head_dim() * s.kv_heads;
  const uint64_t tp = s.tensor;
  const uint64_t sf = s.zero >= 3 ? s.data : 1;
  const bool writes_weights = s.zero >= 3 || pos.data == 0;
  const bool writes_optimizer = s.zero >= 1 || pos.data == 0;
  if (writes_weights) {
    const uint64_t base = s.layers / s.pipeline;
    const uint64_t extra = s.layers % s.pipeline;
    const uint64_t st = pos.pipeline;
    uint64_t first = st < extra ? st * (base + 1) + 1 : extra * (base + 1) + (st - extra) * base + 1;
    uint64_t last = first + (st < extra ? base : base - 1);
    if (st == s.pipeline - 1) last = s.layers + 2;
    if (st == 0) first = 0;
    for (uint64_t i = first; i <= last; ++i) {
      if (i == 0) {
        push(out, TensorPart::kEmbedding, TensorState::kWeights, -1, h * s.vocab / tp / sf, s.weights);
      } else if (i == s.layers + 1) {
        push(out, TensorPart::kOutput, TensorState::kWeights, -1, h * s.vocab / tp / sf, s.weights);
      } else if (i == s.layers + 2) {
        push(out, TensorPart::kFinalNorm, TensorState::kWeights, -1, h / sf, s.weights);
      } else {
        const auto l = static_cast<int64_t>(i - 1);
        push(out, TensorPart::kAttnNorm, TensorState::kWeights, l, h / sf, s.weights);
        push(out, TensorPart::kDlioQkv, TensorState::kWeights, l, h * (h + 2 * dkv) / tp / sf, s.weights);
        push(out, TensorPart::kO, TensorState::kWeights, l, h * h / tp / sf, s.weights);
        push(out, TensorPart::kMlpNorm, TensorState::kWeights, l, h / sf, s.weights);
        push(out, TensorPart::kDlioUpGate, TensorState::kWeights, l, h * 2 * s.ffn / tp / sf, s.weights);
        push(out, TensorPart::kDown, TensorState::kWeights, l, h * s.ffn / tp / sf, s.weights);
      }
    }
  }
  if (writes_optimizer) {
    const uint64_t mp = s.tensor * s.pipeline;
    const uint64_t n = parameter_count(s) / (s.zero >= 1 ? s.data * mp : mp);
    for (int64_t g = 0; g < 3; ++g) {
      push(out, TensorPart::kDlioOptimizer, TensorState::kOptimizer, g, n, s.moments);
      push(out, TensorPart::kDlioNormGroup, TensorState::kOptimizer, g, 5 * h, s.moments);
    }
  }
}

const char* part_name(TensorPart p) {
  switch (p) {
    case TensorPart::kEmbedding:
      return "embedding";
    case TensorPart::kAttnNorm:
      return "attn_norm";
    case TensorPart::kQ:
      return "attn.q";
    case TensorPart::kK:
      return "attn.k";
    case TensorPart::kV:
      return "attn.v";
    case TensorPart::kO:
      return "attn.o";
    case TensorPart::kMlpNorm:
      return "mlp_norm";
    case TensorPart::kGate:
      return "mlp.gate";
    case TensorPart::kUp:
      return "mlp.up";
    case TensorPart::kDown:
      return "mlp.down";
    case TensorPart::kFinalNorm:
      return "final_norm";
    case TensorPart::kOutput:
      return "output";
    case TensorPart::kDlioQkv:
      return "attn.qkv";
    case TensorPart::kDlioUpGate:
      return "mlp.gate_up";
    case TensorPart::kDlioOptimizer:
      return "optimizer.group";
    case TensorPart::kDlioNormGroup:
      return "optimizer.small_group";
  }
  return "tensor";
}

const char* state_name(TensorState s) {
  switch (s) {
    case TensorState::kWeights:
      return "weight";
    case TensorState::kMaster:
      return "master";
    case TensorState::kMoment1:
      return "exp_avg";
    case TensorState::kMoment2:
      return "exp_avg_sq";
    case TensorState::kOptimizer:
      return "";
  }
  return "";
}

}  // namespace

std::string tensor_name(const RankTensor& t) {
  if (t.state == TensorState::kOptimizer)
    return std::string(part_name(t.part)) + "." + std::to_string(t.layer);
  std::string name = t.layer >= 0 ? "layers." + std::to_string(t.layer) + "." : "";
  return name + part_name(t.part) + "." + state_name(t.state);
}

RankPosition rank_position(const TransformerSpec& spec, uint64_t rank) {
  return {rank % spec.tensor, (rank / spec.tensor) % spec.pipeline, rank / (spec.tensor * spec.pipeline)};
}

std::vector<RankTensor> rank_tensors(const TransformerSpec& spec, uint64_t rank) {
  std::vector<RankTensor> out;
  const RankPosition pos = rank_position(spec, rank);
  if (spec.formula == ModelFormula::kDlio) {
    dlio_tensors(spec, pos, &out);
  } else {
    exact_tensors(spec, pos, &out);
  }
  return out;
}

uint64_t rank_bytes(const TransformerSpec& spec, uint64_t rank) {
  uint64_t sum = 0;
  for (const RankTensor& t : rank_tensors(spec, rank)) sum += t.bytes();
  return sum;
}

uint64_t parameter_count(const TransformerSpec& s) {
  const uint64_t h = s.hidden;
  const uint64_t hd = s.head_dim();
  if (s.formula == ModelFormula::kDlio) {
    const uint64_t dkv = hd * s.kv_heads;
    return 2 * s.vocab * h + s.layers * (2 * h + h * (h + 2 * dkv) + h * h + 3 * h * s.ffn) + h;
  }
  const uint64_t attention = s.heads * hd * h + 2 * s.kv_heads * hd * h + h * s.heads * hd;
  const uint64_t per_layer = 2 * h + attention + 3 * s.ffn * h;
  return s.layers * per_layer + (s.tied_embeddings ? 1 : 2) * s.vocab * h + h;
}

ModelPlan plan_model(const TransformerSpec& spec) {
  ModelPlan p;
  p.parameters = parameter_count(spec);
  p.ranks = spec.ranks();
  p.rank_bytes.resize(p.ranks);
  for (uint64_t r = 0; r < p.ranks; ++r) {
    uint64_t bytes = 0;
    for (const RankTensor& t : rank_tensors(spec, r)) {
      bytes += t.bytes();
      (t.state == TensorState::kWeights ? p.weight_bytes : p.optimizer_bytes) += t.bytes();
    }
    p.rank_bytes[r] = bytes;
    p.total_bytes += bytes;
    if (bytes > 0) ++p.writing_ranks;
  }
  return p;
}

nlohmann::json to_json(const ModelPlan& p) {
  return {{"parameters", p.parameters},
          {"ranks", p.ranks},
          {"total_bytes", p.total_bytes},
          {"weight_bytes", p.weight_bytes},
          {"optimizer_bytes", p.optimizer_bytes},
          {"writing_ranks", p.writing_ranks},
          {"rank_bytes", p.rank_bytes}};
}

}  // namespace iofab
