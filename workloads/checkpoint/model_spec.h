// A transformer described the way people describe one (layers, hidden, ffn,
// vocab, heads, kv_heads, tied embeddings), with its training dtypes and its
// parallelism (tensor, pipeline, data, ZeRO stage). What its checkpoint
// holds, rank by rank, follows from it: tensor_plan.h. A suite's `model`
// param, `iofab plan --model` and the presets (presets.h) all end here.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "harness/core/status.h"

namespace iofab {

// kNone: the state is not kept (no fp32 master copy when training in fp32; no optimizer state in a
// weights-only checkpoint).
enum class Dtype { kNone, kFp8, kBf16, kFp16, kFp32 };
uint32_t dtype_bytes(Dtype d);
std::string_view dtype_name(Dtype d);

// How tensors are counted and placed on ranks.
enum class ModelFormula {
  // Every tensor of the architecture (attention q, k, v, o with grouped kv heads; SwiGLU gate, up,
  // down; two RMSNorm vectors a layer; final norm; embedding; output unless tied), sharded as
  // Megatron and ZeRO shard them. docs/models.md.
  kExact,
  // DLIO's checkpoint rules, which MLPerf Storage runs: its parameter formula (head size rounded
  // down, output always counted), its per-layer tensors and optimizer groups, its placement.
  kDlio,
};
std::string_view formula_name(ModelFormula f);

struct TransformerSpec {
  std::string name;  // a preset's name, or empty
  uint64_t layers = 0;
  uint64_t hidden = 0;
  uint64_t ffn = 0;
  uint64_t vocab = 0;
  uint64_t heads = 0;
  uint64_t kv_heads = 0;
  bool tied_embeddings = false;
  Dtype weights = Dtype::kBf16;  // the model's weights as trained
  Dtype master = Dtype::kFp32;   // the optimizer's master copy of the weights
  Dtype moments = Dtype::kFp32;  // each of Adam's two moments
  uint64_t tensor = 1;
  uint64_t pipeline = 1;
  uint64_t data = 1;
  int zero = 0;  // ZeRO stage 0..3; 3 is also FSDP's full sharding
  ModelFormula formula = ModelFormula::kExact;

  uint64_t ranks() const { return tensor * pipeline * data; }
  // hidden / heads: exact for kExact (checked), rounded down for kDlio as DLIO does.
  uint64_t head_dim() const { return heads == 0 ? 0 : hidden / heads; }
};

// The bounds a model takes, so every count stays exact in 64 bits (a tensor's elements below 2^53 as
// well, where a double carries them) and a plan over every rank stays quick.
inline constexpr uint64_t kMaxModelRanks = 65536;
inline constexpr uint64_t kMaxModelLayers = 100000;
inline constexpr uint64_t kMaxModelHidden = 1 << 20;
inline constexpr uint64_t kMaxModelFfn = 1 << 24;
inline constexpr uint64_t kMaxModelVocab = 1 << 24;

// Reads the fields j holds over *spec (a preset's values, or the defaults above), so a suite can name
// a preset and change its parallelism. Every error names path.FIELD and the form it expects; all are
// reported at once. Unknown fields are errors.
Status parse_model_spec(const nlohmann::json& j, const std::string& path, TransformerSpec* spec);
// The relations between fields (heads divide hidden, kv_heads divide heads, pipeline <= layers,
// ranks <= kMaxModelRanks, ...), named at path.
Status check_model_spec(const TransformerSpec& spec, const std::string& path);
// Every field, in the form parse_model_spec reads.
nlohmann::json to_json(const TransformerSpec& spec);

}  // namespace iofab
