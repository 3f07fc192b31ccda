#include "workloads/model_load/model_files.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "harness/core/checked_math.h"
#include "harness/core/json_input.h"
#include "workloads/checkpoint/tensor_content.h"
#include "workloads/checkpoint/tensor_plan.h"
#include "workloads/checkpoint/xxh3.h"

namespace iofab {
namespace {

using nlohmann::json;
using ordered_json = nlohmann::ordered_json;

struct DtypeRow {
  std::string_view name;
  uint64_t bytes;
};
// safetensors' Dtype enum (safetensors/src/tensor.rs), the names its headers carry.
constexpr std::array<DtypeRow, 15> kDtypes = {{{"BOOL", 1},
                                               {"U8", 1},
                                               {"I8", 1},
                                               {"F8_E5M2", 1},
                                               {"F8_E4M3", 1},
                                               {"I16", 2},
                                               {"U16", 2},
                                               {"F16", 2},
                                               {"BF16", 2},
                                               {"I32", 4},
                                               {"U32", 4},
                                               {"F32", 4},
                                               {"F64", 8},
                                               {"I64", 8},
                                               {"U64", 8}}};

std::string_view safetensors_dtype(Dtype d) {
  switch (d) {
    case Dtype::kFp8:
      return "F8_E4M3";
    case Dtype::kBf16:
      return "BF16";
    case Dtype::kFp16:
      return "F16";
    case Dtype::kFp32:
      return "F32";
    case Dtype::kNone:
      break;
  }
  return "BF16";
}

// Llama's names (transformers' LlamaForCausalLM) and shapes ([out, in], as nn.Linear keeps them); a part
// without one keeps iofab's name and a flat shape.
struct Named {
  std::string name;
  std::vector<uint64_t> shape;
};

Named hf_name(const TransformerSpec& s, const RankTensor& t) {
  const std::string layer = "model.layers." + std::to_string(t.layer) + ".";
  const uint64_t q = s.heads * s.head_dim();
  const uint64_t kv = s.kv_heads * s.head_dim();
  Named n;
  switch (t.part) {
    case TensorPart::kEmbedding:
      n = {"model.embed_tokens.weight", {s.vocab, s.hidden}};
      break;
    case TensorPart::kAttnNorm:
      n = {layer + "input_layernorm.weight", {s.hidden}};
      break;
    case TensorPart::kQ:
      n = {layer + "self_attn.q_proj.weight", {q, s.hidden}};
      break;
    case TensorPart::kK:
      n = {layer + "self_attn.k_proj.weight", {kv, s.hidden}};
      break;
    case TensorPart::kV:
      n = {layer + "self_attn.v_proj.weight", {kv, s.hidden}};
      break;
    case TensorPart::kO:
      n = {layer + "self_attn.o_proj.weight", {s.hidden, q}};
      break;
    case TensorPart::kMlpNorm:
      n = {layer + "post_attention_layernorm.weight", {s.hidden}};
      break;
    case TensorPart::kGate:
      n = {layer + "mlp.gate_proj.weight", {s.ffn, s.hidden}};
      break;
    case TensorPart::kUp:
      n = {layer + "mlp.up_proj.weight", {s.ffn, s.hidden}};
      break;
    case TensorPart::kDown:
      n = {layer + "mlp.down_proj.weight", {s.hidden, s.ffn}};
      break;
    case TensorPart::kFinalNorm:
      n = {"model.norm.weight", {s.hidden}};
      break;
    case TensorPart::kOutput:
      n = {"lm_head.weight", {s.vocab, s.hidden}};
      break;
    default:
      n = {tensor_name(t), {t.elements}};
      break;
  }
  uint64_t elements = 1;
  for (uint64_t d : n.shape) elements *= d;
  if (elements != t.elements) n.shape = {t.elements};  // the plan counted it otherwise: keep its count
  return n;
}

// 1/scale of the rows (the first dimension), at least one; the rest as they are.
std::vector<uint64_t> scaled_shape(std::vector<uint64_t> shape, double scale) {
  if (scale > 1 && !shape.empty()) {
    shape[0] =
        std::max<uint64_t>(1, static_cast<uint64_t>(std::floor(static_cast<double>(shape[0]) / scale)));
  }
  return shape;
}

uint64_t elements_of(const std::vector<uint64_t>& shape) {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

// The state dict's order of transformers' LlamaForCausalLM, which save_pretrained splits in: the
// embedding, then each layer's modules as LlamaDecoderLayer.__init__ registers them (self_attn's q, k, v,
// o; mlp's gate, up, down; input_layernorm; post_attention_layernorm), the final norm, lm_head.
std::tuple<int, int64_t, int> hf_state_dict_order(const RankTensor& t) {
  switch (t.part) {
    case TensorPart::kEmbedding:
      return {0, 0, 0};
    case TensorPart::kQ:
      return {1, t.layer, 0};
    case TensorPart::kK:
      return {1, t.layer, 1};
    case TensorPart::kV:
      return {1, t.layer, 2};
    case TensorPart::kO:
      return {1, t.layer, 3};
    case TensorPart::kGate:
      return {1, t.layer, 4};
    case TensorPart::kUp:
      return {1, t.layer, 5};
    case TensorPart::kDown:
      return {1, t.layer, 6};
    case TensorPart::kAttnNorm:
      return {1, t.layer, 7};
    case TensorPart::kMlpNorm:
      return {1, t.layer, 8};
    case TensorPart::kFinalNorm:
      return {2, 0, 0};
    case TensorPart::kOutput:
      return {3, 0, 0};
    default:
      return {1, t.layer, 9};  // a part Llama has not: after its layer's, in the plan's order
  }
}

// The model's weights in that order.
std::vector<RankTensor> hf_weights(const TransformerSpec& whole) {
  std::vector<RankTensor> out;
  for (const RankTensor& t : rank_tensors(whole, 0)) {
    if (t.state == TensorState::kWeights) out.push_back(t);
  }
  std::stable_sort(out.begin(), out.end(), [](const RankTensor& a, const RankTensor& b) {
    return hf_state_dict_order(a) < hf_state_dict_order(b);
  });
  return out;
}

std::string shard_name(size_t k, size_t n) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "model-%05zu-of-%05zu.safetensors", k, n);
  return buf;
}

}  // namespace

uint64_t safetensors_dtype_bytes(std::string_view dtype) {
  for (const DtypeRow& d : kDtypes) {
    if (d.name == dtype) return d.bytes;
  }
  return 0;
}

uint64_t model_tensor_key(std::string_view name) { return xxh3_of(name.data(), name.size()); }

bool metadata_seed(const std::map<std::string, std::string>& metadata, uint64_t* seed) {
  const auto it = metadata.find("iofab_seed");
  if (it == metadata.end() || it->second.empty() || it->second.size() > 20) return false;
  uint64_t v = 0;
  for (char c : it->second) {
    if (c < '0' || c > '9') return false;
    const auto next = checked_add(checked_mul(v, 10), static_cast<uint64_t>(c - '0'));
    if (!next) return false;
    v = *next;
  }
  *seed = v;
  return true;
}

std::string safetensors_header(const std::vector<SafetensorsTensor>& tensors,
                               const std::map<std::string, std::string>& metadata) {
  ordered_json j = ordered_json::object();
  j["__metadata__"] = ordered_json::object();
  for (const auto& [k, v] : metadata) j["__metadata__"][k] = v;
  for (const SafetensorsTensor& t : tensors) {
    j[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {t.begin, t.end}}};
  }
  std::string text = j.dump();
  // safetensors pads with spaces so that the data starts 8-byte aligned.
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  const uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + text;
}

ModelFiles plan_model_files(const TransformerSpec& spec, double scale, uint64_t max_shard_bytes,
                            uint64_t seed) {
  TransformerSpec whole = spec;
  whole.tensor = whole.pipeline = whole.data = 1;
  whole.zero = 0;
  ModelFiles out;
  out.parameters = parameter_count(whole);
  const std::string dtype(safetensors_dtype(whole.weights));
  const uint64_t dbytes = dtype_bytes(whole.weights);
  // Split at full size, as save_pretrained splits the real model.
  std::vector<std::vector<SafetensorsTensor>> shards(1);
  uint64_t shard_full = 0;
  for (const RankTensor& t : hf_weights(whole)) {
    const Named n = hf_name(whole, t);
    const uint64_t full = t.elements * dbytes;
    if (!shards.back().empty() && shard_full + full > max_shard_bytes) {
      shards.emplace_back();
      shard_full = 0;
    }
    shard_full += full;
    out.full_tensor_bytes += full;
    SafetensorsTensor st;
    st.name = n.name;
    st.dtype = dtype;
    st.shape = scaled_shape(n.shape, scale);
    shards.back().push_back(std::move(st));
  }
  const std::map<std::string, std::string> metadata = {
      {"format", "pt"}, {"iofab_seed", std::to_string(seed)}, {"iofab_model", whole.name}};
  for (size_t k = 0; k < shards.size(); ++k) {
    ModelFile f;
    f.name = shard_name(k + 1, shards.size());
    // safetensors' serialize lays a file's tensors out by dtype, then by name (safetensors/src/tensor.rs,
    // prepare: sort_by dtype descending, then name), and its header follows that order; one dtype here.
    std::stable_sort(shards[k].begin(), shards[k].end(),
                     [](const SafetensorsTensor& a, const SafetensorsTensor& b) { return a.name < b.name; });
    uint64_t at = 0;
    for (SafetensorsTensor& t : shards[k]) {
      t.begin = at;
      at += elements_of(t.shape) * dbytes;
      t.end = at;
    }
    f.tensors = std::move(shards[k]);
    f.header = safetensors_header(f.tensors, metadata);
    f.bytes = f.header.size() + at;
    out.tensor_bytes += at;
    out.file_bytes += f.bytes;
    out.tensors += f.tensors.size();
    out.files.push_back(std::move(f));
  }
  return out;
}

Status parse_safetensors_header(std::string_view json_text, uint64_t data_bytes, ParsedHeader* out) {
  out->tensors.clear();
  out->metadata.clear();
  if (json_text.empty() || json_text.front() != '{') {
    return Status::Invalid("header: does not start with '{' (not a safetensors header)");
  }
  json j;
  if (Status s = parse_json_input(json_text, {}, &j); !s.ok())
    return Status::Invalid("header: " + s.message());
  if (!j.is_object()) return Status::Invalid("header: expected a JSON object");
  for (const auto& [name, v] : j.items()) {
    if (name == "__metadata__") {
      if (!v.is_object()) return Status::Invalid("header: __metadata__: expected an object of strings");
      for (const auto& [k, s] : v.items()) {
        if (!s.is_string()) return Status::Invalid("header: __metadata__." + k + ": expected a string");
        out->metadata[k] = s.get<std::string>();
      }
      continue;
    }
    const std::string where = "header: tensor \"" + name + "\": ";
    if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets")) {
      return Status::Invalid(where + "expected an object with dtype, shape and data_offsets");
    }
    SafetensorsTensor t;
    t.name = name;
    const json& dt = v["dtype"];
    const uint64_t dbytes = dt.is_string() ? safetensors_dtype_bytes(dt.get<std::string>()) : 0;
    if (dbytes == 0) return Status::Invalid(where + "unknown dtype " + dt.dump());
    t.dtype = dt.get<std::string>();
    const json& shape = v["shape"];
    if (!shape.is_array()) return Status::Invalid(where + "shape: expected an array of sizes");
    std::optional<uint64_t> span = dbytes;
    for (const json& d : shape) {
      uint64_t n = 0;
      if (!json_u64(d, &n))
        return Status::Invalid(where + "shape: expected an array of sizes, got " + shape.dump());
      t.shape.push_back(n);
      span = checked_mul(span, n);
    }
    const json& offs = v["data_offsets"];
    if (!offs.is_array() || offs.size() != 2 || !json_u64(offs[0], &t.begin) || !json_u64(offs[1], &t.end) ||
        t.end < t.begin) {
      return Status::Invalid(where + "data_offsets: expected [begin, end] with begin <= end, got " +
                             offs.dump());
    }
    if (!span || *span != t.end - t.begin) {
      return Status::Invalid(where + "data_offsets span " + std::to_string(t.end - t.begin) +
                             " bytes, but its shape and dtype make " +
                             (span ? std::to_string(*span) : "more"));
    }
    out->tensors.push_back(std::move(t));
  }
  std::sort(out->tensors.begin(), out->tensors.end(),
            [](const SafetensorsTensor& a, const SafetensorsTensor& b) { return a.begin < b.begin; });
  uint64_t at = 0;
  for (const SafetensorsTensor& t : out->tensors) {
    if (t.begin != at) {
      return Status::Invalid("header: tensor \"" + t.name + "\" starts at " + std::to_string(t.begin) +
                             " where the data before it ends at " + std::to_string(at) +
                             (t.begin < at ? " (overlap)" : " (gap)"));
    }
    at = t.end;
  }
  if (at != data_bytes) {
    return Status::Invalid("header: the tensors cover " + std::to_string(at) + " bytes but the file holds " +
                           std::to_string(data_bytes) + " after its header");
  }
  return Status::Ok();
}

void fill_model_file(const ModelFile& f, uint64_t seed, uint64_t offset, unsigned char* buf, size_t len) {
  uint64_t at = offset;
  const uint64_t end = offset + len;
  if (at < f.header.size()) {
    const uint64_t n = std::min<uint64_t>(end, f.header.size()) - at;
    std::memcpy(buf, f.header.data() + at, n);
    at += n;
  }
  if (at >= end) return;
  // The first tensor that ends past at.
  auto it = std::upper_bound(f.tensors.begin(), f.tensors.end(), at - f.data_start(),
                             [](uint64_t pos, const SafetensorsTensor& t) { return pos < t.end; });
  for (; at < end && it != f.tensors.end(); ++it) {
    const uint64_t in_tensor = at - f.data_start() - it->begin;
    const uint64_t n = std::min<uint64_t>(end - at, it->bytes() - in_tensor);
    fill_tensor_bytes(seed, 0, model_tensor_key(it->name), in_tensor, buf + (at - offset), n);
    at += n;
  }
}

std::string model_index_json(const ModelFiles& files) {
  // save_pretrained writes the index with json.dumps(index, indent=2, sort_keys=True): every object's keys
  // sorted, as nlohmann::json (a std::map) keeps them.
  json map = json::object();
  for (const ModelFile& f : files.files) {
    for (const SafetensorsTensor& t : f.tensors) map[t.name] = f.name;
  }
  json j = {{"metadata",
             {{"total_size", files.tensor_bytes},
              {"iofab_full_size", files.full_tensor_bytes},
              {"iofab_parameters", files.parameters}}},
            {"weight_map", map}};
  return j.dump(2) + "\n";
}

Status parse_model_index(std::string_view text, ModelIndex* out) {
  *out = ModelIndex{};
  json j;
  if (Status s = parse_json_input(text, {}, &j); !s.ok()) return Status::Invalid(s.message());
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object()) {
    return Status::Invalid("expected an object with a weight_map object (tensor name -> file)");
  }
  if (j.contains("metadata") && j["metadata"].is_object()) {
    const json& m = j["metadata"];
    for (const auto& [key, field] :
         {std::pair{"total_size", &out->total_size}, std::pair{"iofab_full_size", &out->full_size},
          std::pair{"iofab_parameters", &out->parameters}}) {
      if (m.contains(key) && !json_u64(m[key], field)) {
        return Status::Invalid(std::string("metadata.") + key + ": expected a count, got " + m[key].dump());
      }
    }
  }
  if (out->full_size == 0) out->full_size = out->total_size;
  std::set<std::string> names;
  for (const auto& [tensor, file] : j["weight_map"].items()) {
    const bool ok = file.is_string() && !file.get<std::string>().empty() &&
                    file.get<std::string>().find('/') == std::string::npos &&
                    file.get<std::string>() != "." && file.get<std::string>() != "..";
    if (!ok) {
      return Status::Invalid("weight_map.\"" + tensor + "\": expected a file name in the same folder, got " +
                             file.dump());
    }
    names.insert(file.get<std::string>());
  }
  if (names.empty()) return Status::Invalid("weight_map names no file");
  out->files.assign(names.begin(), names.end());
  return Status::Ok();
}

}  // namespace iofab
