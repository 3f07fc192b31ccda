#include "workloads/checkpoint/presets.h"

namespace iofab {

namespace {

// A published architecture's shape: what differs between the Llama 3 sizes.
struct Shape {
  uint64_t layers = 0, hidden = 0, ffn = 0, heads = 0;
  uint64_t kv_heads = 8;
};

// How MLPerf Storage's rules run a model: tensor x pipeline x data parallel ranks and the ZeRO stage.
struct Parallelism {
  uint64_t tensor = 1, pipeline = 1, data = 1;
  int zero = 0;
};

// The architecture as Meta publishes it (params.json of each release): untied embedding and output,
// bf16 weights, fp32 master weights and Adam moments, on one rank unless a suite says otherwise.
TransformerSpec llama3(const char* name, const Shape& shape) {
  TransformerSpec s;
  s.name = name;
  s.layers = shape.layers;
  s.hidden = shape.hidden;
  s.ffn = shape.ffn;
  s.vocab = 128256;
  s.heads = shape.heads;
  s.kv_heads = shape.kv_heads;
  return s;
}

// MLPerf Storage's checkpointing workload: the shape from its DLIO config
// (configs/dlio/workload/llama3_*.yaml: fp16 model, fp32 optimizer), the parallelism and ZeRO stage
// from its rules' table of models (Submission_guidelines.md, Table 2), counted by DLIO's rules.
TransformerSpec mlperf(const char* name, const Shape& shape, const Parallelism& par) {
  TransformerSpec s = llama3(name, shape);
  s.weights = Dtype::kFp16;
  s.master = Dtype::kNone;
  s.moments = Dtype::kFp32;
  s.tensor = par.tensor;
  s.pipeline = par.pipeline;
  s.data = par.data;
  s.zero = par.zero;
  s.formula = ModelFormula::kDlio;
  return s;
}

}  // namespace

const std::vector<ModelPreset>& model_presets() {
  static const std::vector<ModelPreset> kPresets = {
      {.name = "llama3-8b",
       .about = "Llama 3 8B as published, every tensor counted",
       .spec = llama3("llama3-8b", {.layers = 32, .hidden = 4096, .ffn = 14336, .heads = 32}),
       .published_gib = 0},
      {.name = "llama3-70b",
       .about = "Llama 3 70B as published, every tensor counted",
       .spec = llama3("llama3-70b", {.layers = 80, .hidden = 8192, .ffn = 28672, .heads = 64}),
       .published_gib = 0},
      {.name = "llama3-405b",
       .about = "Llama 3.1 405B as published, every tensor counted",
       .spec = llama3("llama3-405b", {.layers = 126, .hidden = 16384, .ffn = 53248, .heads = 128}),
       .published_gib = 0},
      {.name = "mlperf-llama3-8b",
       .about = "MLPerf Storage checkpointing llama3-8b: DLIO's rules, 8 ranks (1x1x8), ZeRO 3",
       .spec = mlperf("mlperf-llama3-8b",
                      {.layers = 32, .hidden = 4096, .ffn = 14336, .heads = 32, .kv_heads = 8},
                      {.tensor = 1, .pipeline = 1, .data = 8, .zero = 3}),
       .published_gib = 105},
      {.name = "mlperf-llama3-70b",
       .about = "MLPerf Storage checkpointing llama3-70b: DLIO's rules, 64 ranks (8x1x8), ZeRO 3",
       .spec = mlperf("mlperf-llama3-70b",
                      {.layers = 80, .hidden = 8192, .ffn = 28672, .heads = 128, .kv_heads = 8},
                      {.tensor = 8, .pipeline = 1, .data = 8, .zero = 3}),
       .published_gib = 912},
      {.name = "mlperf-llama3-405b",
       .about = "MLPerf Storage checkpointing llama3-405b: DLIO's rules, 512 ranks (8x32x2), ZeRO 1",
       .spec = mlperf("mlperf-llama3-405b",
                      {.layers = 126, .hidden = 16384, .ffn = 53248, .heads = 128, .kv_heads = 8},
                      {.tensor = 8, .pipeline = 32, .data = 2, .zero = 1}),
       .published_gib = 5290},
      {.name = "mlperf-llama3-1t",
       .about = "MLPerf Storage checkpointing llama3-1t: DLIO's rules, 1,024 ranks (8x64x2), ZeRO 1",
       .spec = mlperf("mlperf-llama3-1t",
                      {.layers = 128, .hidden = 25872, .ffn = 98304, .heads = 192, .kv_heads = 32},
                      {.tensor = 8, .pipeline = 64, .data = 2, .zero = 1}),
       .published_gib = 18000},
  };
  return kPresets;
}

const ModelPreset* find_model_preset(std::string_view name) {
  for (const auto& p : model_presets()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string model_preset_names() {
  std::string out;
  for (const auto& p : model_presets()) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

}  // namespace iofab
