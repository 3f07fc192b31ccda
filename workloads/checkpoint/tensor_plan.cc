#include "workloads/checkpoint/tensor_plan.h"

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>
#include <unordered_map>

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

// The first element of part i of n split as share() splits it.
uint64_t share_start(uint64_t n, uint64_t parts, uint64_t i) { return i * (n / parts) + std::min(i, n % parts); }

void push(std::vector<RankTensor>* out, TensorPart part, TensorState state, int64_t layer, uint64_t elements,
          Dtype dtype, uint64_t offset = 0, uint64_t whole = 0) {
  if (elements == 0 || dtype == Dtype::kNone) return;
  out->push_back({part, state, layer, elements, dtype_bytes(dtype), offset, whole});
}

// How tensor parallelism splits a tensor of rows x cols.
enum class TpSplit {
  kRows,        // column-parallel (q, k, v, gate, up) and vocab-parallel (embedding, output)
  kColumns,     // row-parallel (o, down)
  kReplicated,  // norm vectors: every tensor rank holds all of it
};

struct Piece {
  TensorPart part;
  int64_t layer;
  uint64_t rows;
  uint64_t cols;
  TpSplit split;
};

// The architecture's tensors of pipeline stage `stage`, whole, in the model's order.
std::vector<Piece> stage_pieces(const TransformerSpec& s, uint64_t stage) {
  std::vector<Piece> pieces;
  const uint64_t h = s.hidden;
  const uint64_t hd = s.head_dim();
  if (stage == 0) pieces.push_back({TensorPart::kEmbedding, -1, s.vocab, h, TpSplit::kRows});
  const LayerRange lr = stage_layers(s, stage);
  for (uint64_t i = lr.first; i < lr.first + lr.count; ++i) {
    const auto l = static_cast<int64_t>(i);
    pieces.push_back({TensorPart::kAttnNorm, l, 1, h, TpSplit::kReplicated});
    pieces.push_back({TensorPart::kQ, l, s.heads * hd, h, TpSplit::kRows});
    pieces.push_back({TensorPart::kK, l, s.kv_heads * hd, h, TpSplit::kRows});
    pieces.push_back({TensorPart::kV, l, s.kv_heads * hd, h, TpSplit::kRows});
    pieces.push_back({TensorPart::kO, l, h, s.heads * hd, TpSplit::kColumns});
    pieces.push_back({TensorPart::kMlpNorm, l, 1, h, TpSplit::kReplicated});
    pieces.push_back({TensorPart::kGate, l, s.ffn, h, TpSplit::kRows});
    pieces.push_back({TensorPart::kUp, l, s.ffn, h, TpSplit::kRows});
    pieces.push_back({TensorPart::kDown, l, h, s.ffn, TpSplit::kColumns});
  }
  if (stage == s.pipeline - 1) {
    pieces.push_back({TensorPart::kFinalNorm, -1, 1, h, TpSplit::kReplicated});
    // Tied: the output layer is the embedding, stored once with it.
    if (!s.tied_embeddings) pieces.push_back({TensorPart::kOutput, -1, s.vocab, h, TpSplit::kRows});
  }
  return pieces;
}

// Tensor rank t's part of a piece: its elements and where they start in the whole tensor's row.
struct Span {
  uint64_t offset = 0;
  uint64_t elements = 0;
};
Span tp_span(const Piece& p, uint64_t tensor, uint64_t t) {
  switch (p.split) {
    case TpSplit::kRows:
      return {share_start(p.rows, tensor, t) * p.cols, share(p.rows, tensor, t) * p.cols};
    case TpSplit::kColumns:
      return {p.rows * share_start(p.cols, tensor, t), p.rows * share(p.cols, tensor, t)};
    case TpSplit::kReplicated:
      break;
  }
  return {0, p.rows * p.cols};
}

constexpr TensorState kStates[] = {TensorState::kWeights, TensorState::kMaster, TensorState::kMoment1,
                                   TensorState::kMoment2};

// The architecture's tensors on every rank of one pipeline stage. Tensor parallelism splits q, k, v,
// gate, up, the embedding and the output by rows and o and down by columns; the norm vectors are
// replicated on every tensor rank. ZeRO then splits each tensor rank's piece over the data-parallel
// ranks: the optimizer's state from stage 1, the weights too at stage 3; what is not split, every
// data-parallel rank holds. Of the state several ranks hold the same copy of, the replica writer picks
// who writes it.
class StagePlanner {
 public:
  StagePlanner(const TransformerSpec& s, uint64_t stage, ReplicaWriter writer)
      : s_(s), writer_(writer), pieces_(stage_pieces(s, stage)) {
    if (writer_ == ReplicaWriter::kSpread) spread();
    if (writer_ == ReplicaWriter::kBalanced) balance();
  }

  // Rank (t, stage, d)'s tensors, weights first, then each tensor's optimizer state.
  std::vector<RankTensor> tensors(uint64_t t, uint64_t d) const {
    std::vector<RankTensor> out;
    for_each_item([&](size_t pi, size_t si) { add(pi, si, t, d, &out); });
    return out;
  }

 private:
  Dtype dtype_of(size_t si) const {
    switch (kStates[si]) {
      case TensorState::kWeights:
        return s_.weights;
      case TensorState::kMaster:
        return s_.master;
      default:
        return s_.moments;
    }
  }
  bool sharded(size_t si) const { return si == 0 ? s_.zero >= 3 : s_.zero >= 1; }
  // Ranks hold the same copy as (t, d) of piece pi's state si: over the data-parallel ranks when the
  // state is not sharded, over the tensor ranks for a replicated piece. The copy is identified by the
  // tensor rank (or the data rank) that every holder shares: its group.
  uint64_t group_of(size_t pi, size_t si, uint64_t t, uint64_t d) const {
    const bool tp_rep = pieces_[pi].split == TpSplit::kReplicated;
    if (!sharded(si)) return tp_rep ? 0 : t;
    return tp_rep ? d : 0;
  }
  bool replicated(size_t pi, size_t si) const {
    const bool tp_rep = pieces_[pi].split == TpSplit::kReplicated && s_.tensor > 1;
    return (!sharded(si) && s_.data > 1) || tp_rep;
  }
  // Whether rank (t, d) writes its copy of piece pi's state si.
  bool writes(size_t pi, size_t si, uint64_t t, uint64_t d) const {
    if (!replicated(pi, si)) return true;
    switch (writer_) {
      case ReplicaWriter::kAll:
        return true;
      case ReplicaWriter::kFirst: {
        const bool tp_rep = pieces_[pi].split == TpSplit::kReplicated;
        return (sharded(si) || d == 0) && (!tp_rep || t == 0);
      }
      case ReplicaWriter::kSpread:
      case ReplicaWriter::kBalanced:
        break;
    }
    const auto it = spread_.find(key(pi, si, group_of(pi, si, t, d)));
    return it != spread_.end() && it->second == local(t, d);
  }
  // Rank (t, d)'s piece of piece pi's state si.
  Span span_of(size_t pi, size_t si, uint64_t t, uint64_t d) const {
    Span span = tp_span(pieces_[pi], s_.tensor, t);
    if (sharded(si)) {
      span.offset += share_start(span.elements, s_.data, d);
      span.elements = share(span.elements, s_.data, d);
    }
    return span;
  }
  void add(size_t pi, size_t si, uint64_t t, uint64_t d, std::vector<RankTensor>* out) const {
    const Piece& p = pieces_[pi];
    if (dtype_of(si) == Dtype::kNone || !writes(pi, si, t, d)) return;
    const Span span = span_of(pi, si, t, d);
    push(out, p.part, kStates[si], p.layer, span.elements, dtype_of(si), span.offset, p.rows * p.cols);
  }
  // The (piece, state) pairs of a rank's plan in its order: every piece's weights, then each piece's
  // master weights and moments, one after the other, as an optimizer's state dict keeps them.
  template <typename F>
  void for_each_item(F f) const {
    for (size_t pi = 0; pi < pieces_.size(); ++pi) f(pi, 0);
    for (size_t pi = 0; pi < pieces_.size(); ++pi) {
      for (size_t si = 1; si < std::size(kStates); ++si) f(pi, si);
    }
  }
  uint64_t local(uint64_t t, uint64_t d) const { return d * s_.tensor + t; }
  static uint64_t key(size_t pi, size_t si, uint64_t group) { return ((group * 4) + si) * (1ULL << 24) + pi; }

  // Megatron's rule for replicated shards (distribute_shards_to_ranks): the largest first, each to the
  // holder with the fewest bytes assigned so far, the lowest rank on a tie.
  void spread() {
    struct Copy {
      size_t pi, si;
      uint64_t group, bytes;
    };
    std::vector<Copy> copies;
    for (size_t pi = 0; pi < pieces_.size(); ++pi) {
      for (size_t si = 0; si < std::size(kStates); ++si) {
        if (dtype_of(si) == Dtype::kNone || !replicated(pi, si)) continue;
        const bool tp_rep = pieces_[pi].split == TpSplit::kReplicated;
        const uint64_t groups = !sharded(si) ? (tp_rep ? 1 : s_.tensor) : (tp_rep ? s_.data : 1);
        for (uint64_t g = 0; g < groups; ++g) {
          // Any holder's view of the copy gives its bytes: the group's first.
          const uint64_t t = (!sharded(si) && !tp_rep) ? g : 0;
          const uint64_t d = (sharded(si) && tp_rep) ? g : 0;
          Span span = tp_span(pieces_[pi], s_.tensor, t);
          if (sharded(si)) span.elements = share(span.elements, s_.data, d);
          copies.push_back({pi, si, g, span.elements * dtype_bytes(dtype_of(si))});
        }
      }
    }
    std::stable_sort(copies.begin(), copies.end(), [](const Copy& a, const Copy& b) { return a.bytes > b.bytes; });
    std::vector<uint64_t> load(s_.tensor * s_.data, 0);
    for (const Copy& c : copies) {
      const bool tp_rep = pieces_[c.pi].split == TpSplit::kReplicated;
      uint64_t best = UINT64_MAX;
      auto consider = [&](uint64_t t, uint64_t d) {
        const uint64_t r = local(t, d);
        if (best == UINT64_MAX || load[r] < load[best] || (load[r] == load[best] && r < best)) best = r;
      };
      for (uint64_t d = 0; d < s_.data; ++d) {
        for (uint64_t t = 0; t < s_.tensor; ++t) {
          if (group_of(c.pi, c.si, t, d) != c.group) continue;
          if (!tp_rep && sharded(c.si)) continue;  // not replicated this way
          consider(t, d);
        }
      }
      load[best] += c.bytes;
      spread_[key(c.pi, c.si, c.group)] = best;
    }
  }

  // PyTorch DCP's rule (torch/distributed/checkpoint/_dedup_save_plans.py, dedup_save_plans, lines 24-41
  // at commit 646bddd): every item of every rank's plan, in the order the items first appear going
  // through the plans in rank order, goes to the plan of the smallest size so far among the ranks that
  // hold it (min over the set of plan indices: the lowest rank on a tie), whose size then grows by the
  // item's bytes. Items held by one rank only count too, in their place in that order. The ranks of
  // one pipeline stage hold no item of another's, and in rank order a stage's ranks come d-major,
  // t-minor: local() order.
  void balance() {
    std::vector<uint64_t> load(s_.tensor * s_.data, 0);
    for (uint64_t d = 0; d < s_.data; ++d) {
      for (uint64_t t = 0; t < s_.tensor; ++t) {
        for_each_item([&](size_t pi, size_t si) {
          if (dtype_of(si) == Dtype::kNone) return;
          const uint64_t bytes = span_of(pi, si, t, d).elements * dtype_bytes(dtype_of(si));
          if (bytes == 0) return;  // no item (push() leaves empty pieces out)
          if (!replicated(pi, si)) {
            load[local(t, d)] += bytes;
            return;
          }
          const uint64_t group = group_of(pi, si, t, d);
          if (!spread_.emplace(key(pi, si, group), 0).second) return;  // placed where it first appeared
          uint64_t best = UINT64_MAX;
          for (uint64_t hd = 0; hd < s_.data; ++hd) {
            for (uint64_t ht = 0; ht < s_.tensor; ++ht) {
              if (group_of(pi, si, ht, hd) != group) continue;
              const uint64_t r = local(ht, hd);
              if (best == UINT64_MAX || load[r] < load[best]) best = r;  // ascending r: ties keep the lowest
            }
          }
          load[best] += bytes;
          spread_[key(pi, si, group)] = best;
        });
      }
    }
  }

  const TransformerSpec& s_;
  ReplicaWriter writer_;
  std::vector<Piece> pieces_;
  std::unordered_map<uint64_t, uint64_t> spread_;  // copy -> the stage-local rank that writes it
};

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

std::string_view replica_writer_name(ReplicaWriter w) {
  switch (w) {
    case ReplicaWriter::kFirst:
      return "first";
    case ReplicaWriter::kSpread:
      return "spread";
    case ReplicaWriter::kAll:
      return "all";
    case ReplicaWriter::kBalanced:
      return "balanced";
  }
  return "first";
}

uint64_t tensor_key(const RankTensor& t) {
  // FNV-1a of the name: the same on every host, in every run and under every parallelism.
  uint64_t h = 1469598103934665603ULL;
  for (char c : tensor_name(t)) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

std::vector<RankTensor> rank_tensors(const TransformerSpec& spec, uint64_t rank, ReplicaWriter writer) {
  std::vector<RankTensor> out;
  const RankPosition pos = rank_position(spec, rank);
  if (spec.formula == ModelFormula::kDlio) {
    dlio_tensors(spec, pos, &out);
    return out;
  }
  return StagePlanner(spec, pos.pipeline, writer).tensors(pos.tensor, pos.data);
}

uint64_t rank_bytes(const TransformerSpec& spec, uint64_t rank, ReplicaWriter writer) {
  uint64_t sum = 0;
  for (const RankTensor& t : rank_tensors(spec, rank, writer)) sum += t.bytes();
  return sum;
}

namespace {

// Calls f(rank, tensors) for every rank, planning each pipeline stage once.
template <typename F>
void for_each_rank(const TransformerSpec& spec, ReplicaWriter writer, F f) {
  if (spec.formula == ModelFormula::kDlio) {
    for (uint64_t r = 0; r < spec.ranks(); ++r) f(r, rank_tensors(spec, r, writer));
    return;
  }
  for (uint64_t stage = 0; stage < spec.pipeline; ++stage) {
    const StagePlanner planner(spec, stage, writer);
    for (uint64_t d = 0; d < spec.data; ++d) {
      for (uint64_t t = 0; t < spec.tensor; ++t) {
        f(t + spec.tensor * (stage + spec.pipeline * d), planner.tensors(t, d));
      }
    }
  }
}

}  // namespace

std::vector<std::vector<RankTensor>> all_rank_tensors(const TransformerSpec& spec, ReplicaWriter writer) {
  std::vector<std::vector<RankTensor>> all(spec.ranks());
  for_each_rank(spec, writer, [&](uint64_t r, std::vector<RankTensor> t) { all[r] = std::move(t); });
  return all;
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

double ModelPlan::skew() const {
  if (ranks == 0 || total_bytes == 0) return 1;
  const uint64_t most = *std::max_element(rank_bytes.begin(), rank_bytes.end());
  return static_cast<double>(most) / (static_cast<double>(total_bytes) / static_cast<double>(ranks));
}

ModelPlan plan_model(const TransformerSpec& spec, ReplicaWriter writer) {
  ModelPlan p;
  p.parameters = parameter_count(spec);
  p.ranks = spec.ranks();
  p.replica_writer = writer;
  p.rank_bytes.resize(p.ranks);
  for_each_rank(spec, writer, [&](uint64_t r, const std::vector<RankTensor>& tensors) {
    uint64_t bytes = 0;
    for (const RankTensor& t : tensors) {
      bytes += t.bytes();
      (t.state == TensorState::kWeights ? p.weight_bytes : p.optimizer_bytes) += t.bytes();
    }
    p.rank_bytes[r] = bytes;
    p.total_bytes += bytes;
    if (bytes > 0) ++p.writing_ranks;
  });
  return p;
}

nlohmann::json to_json(const ModelPlan& p) {
  return {{"parameters", p.parameters},
          {"ranks", p.ranks},
          {"total_bytes", p.total_bytes},
          {"weight_bytes", p.weight_bytes},
          {"optimizer_bytes", p.optimizer_bytes},
          {"writing_ranks", p.writing_ranks},
          {"replica_writer", replica_writer_name(p.replica_writer)},
          {"skew", p.skew()},
          {"rank_bytes", p.rank_bytes}};
}

}  // namespace iofab
