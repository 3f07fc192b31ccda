#include "workloads/checkpoint/presets.h"

namespace iofab {

namespace {

// The architecture as Meta publishes it (params.json of each release): untied embedding and output,
// bf16 weights, fp32 master weights and Adam moments, on one rank unless a suite says otherwise.
TransformerSpec llama3(const char* name, uint64_t layers, uint64_t hidden, uint64_t ffn, uint64_t heads) {
  TransformerSpec s;
  s.name = name;
  s.layers = layers;
  s.hidden = hidden;
  s.ffn = ffn;
  s.vocab = 128256;
  s.heads = heads;
  s.kv_heads = 8;
  return s;
}

// MLPerf Storage's checkpointing workload: the shape from its DLIO config
// (configs/dlio/workload/llama3_*.yaml: fp16 model, fp32 optimizer), the parallelism and ZeRO stage
// from its rules' table of models (Submission_guidelines.md, Table 2), counted by DLIO's rules.
TransformerSpec mlperf(const char* name, uint64_t layers, uint64_t hidden, uint64_t ffn, uint64_t heads,
                       uint64_t kv_heads, uint64_t tp, uint64_t pp, uint64_t dp, int zero) {
  TransformerSpec s = llama3(name, layers, hidden, ffn, heads);
  s.kv_heads = kv_heads;
  s.weights = Dtype::kFp16;
  s.master = Dtype::kNone;
  s.moments = Dtype::kFp32;
  s.tensor = tp;
  s.pipeline = pp;
  s.data = dp;
  s.zero = zero;
  s.formula = ModelFormula::kDlio;
  return s;
}

}  // namespace

const std::vector<ModelPreset>& model_presets() {
  static const std::vector<ModelPreset> kPresets = {
      {"llama3-8b", "Llama 3 8B as published, every tensor counted", llama3("llama3-8b", 32, 4096, 14336, 32),
       0},
      {"llama3-70b", "Llama 3 70B as published, every tensor counted",
       llama3("llama3-70b", 80, 8192, 28672, 64), 0},
      {"llama3-405b", "Llama 3.1 405B as published, every tensor counted",
       llama3("llama3-405b", 126, 16384, 53248, 128), 0},
      {"mlperf-llama3-8b", "MLPerf Storage checkpointing llama3-8b: DLIO's rules, 8 ranks (1x1x8), ZeRO 3",
       mlperf("mlperf-llama3-8b", 32, 4096, 14336, 32, 8, 1, 1, 8, 3), 105},
      {"mlperf-llama3-70b", "MLPerf Storage checkpointing llama3-70b: DLIO's rules, 64 ranks (8x1x8), ZeRO 3",
       mlperf("mlperf-llama3-70b", 80, 8192, 28672, 128, 8, 8, 1, 8, 3), 912},
      {"mlperf-llama3-405b",
       "MLPerf Storage checkpointing llama3-405b: DLIO's rules, 512 ranks (8x32x2), ZeRO 1",
       mlperf("mlperf-llama3-405b", 126, 16384, 53248, 128, 8, 8, 32, 2, 1), 5290},
      {"mlperf-llama3-1t",
       "MLPerf Storage checkpointing llama3-1t: DLIO's rules, 1,024 ranks (8x64x2), ZeRO 1",
       mlperf("mlperf-llama3-1t", 128, 25872, 98304, 192, 32, 8, 64, 2, 1), 18000},
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
