// A model's inference weights as Hugging Face ships them: safetensors files. Each file is an 8-byte
// little-endian header length, a JSON header (tensor name -> dtype, shape, data_offsets; a
// "__metadata__" of strings), padded with spaces to 8 bytes, then the tensors' bytes one after the other,
// nothing after the last. The files are split as save_pretrained splits them (a new file when the next
// tensor would pass max_shard_size, counted at full size, so a scaled model keeps the real model's file
// count), named model-0000k-of-0000n.safetensors, with model.safetensors.index.json mapping every tensor
// to its file.
//
// The tensors are the transformer's weights in the spec's weights dtype (bf16: 2 bytes a parameter),
// unsharded, named as Llama's checkpoints name them. With a scale, each tensor keeps its columns and
// 1/scale of its rows (at least one), so the mix of sizes stays the model's. A tensor's bytes are
// tensor_content's for (seed, its name), so a reader verifies every byte from the header alone (the seed
// is in __metadata__). Pure: no I/O.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.h"
#include "workloads/checkpoint/model_spec.h"

namespace iofab {

// save_pretrained's default max_shard_size (5GB).
inline constexpr uint64_t kDefaultMaxShardBytes = 5'000'000'000ULL;
// safetensors' own limit on a header.
inline constexpr uint64_t kMaxSafetensorsHeader = 100'000'000;
inline constexpr std::string_view kModelIndexName = "model.safetensors.index.json";

struct SafetensorsTensor {
  std::string name;             // "model.layers.0.self_attn.q_proj.weight"
  std::string dtype;            // "BF16"
  std::vector<uint64_t> shape;  // as written (scaled rows)
  uint64_t begin = 0;           // data_offsets: from the end of the header
  uint64_t end = 0;
  uint64_t bytes() const { return end - begin; }
};

struct ModelFile {
  std::string name;  // "model-00001-of-00004.safetensors"
  std::vector<SafetensorsTensor> tensors;
  std::string header;  // the 8-byte length and the padded JSON, as written
  uint64_t bytes = 0;  // the whole file: header + tensors
  uint64_t data_start() const { return header.size(); }
};

struct ModelFiles {
  std::vector<ModelFile> files;
  uint64_t parameters = 0;         // of the full model
  uint64_t full_tensor_bytes = 0;  // the full model's weights (parameters x dtype bytes)
  uint64_t tensor_bytes = 0;       // as written (scaled)
  uint64_t file_bytes = 0;         // every file, headers included
  uint64_t tensors = 0;
};

// The files of spec's weights (its parallelism is not used: every replica loads the whole model). scale
// >= 1. The formula must be kExact (the architecture's tensors).
ModelFiles plan_model_files(const TransformerSpec& spec, double scale, uint64_t max_shard_bytes,
                            uint64_t seed);

// The header bytes (8-byte length + JSON padded to 8) for tensors (data_offsets as they hold) and metadata.
std::string safetensors_header(const std::vector<SafetensorsTensor>& tensors,
                               const std::map<std::string, std::string>& metadata);

// What a loader learns from a header: the tensors sorted by begin, and __metadata__.
struct ParsedHeader {
  std::vector<SafetensorsTensor> tensors;
  std::map<std::string, std::string> metadata;
};
// Reads the JSON of a header (after its 8-byte length) as safetensors does and checks it: every tensor
// has a known dtype, a shape and data_offsets whose span is its shape's elements x dtype bytes, and the
// spans tile [0, data_bytes) exactly, with no gap, overlap or byte left over. Errors say which tensor
// and why.
Status parse_safetensors_header(std::string_view json_text, uint64_t data_bytes, ParsedHeader* out);
// safetensors' dtype names and their bytes; 0 for an unknown name.
uint64_t safetensors_dtype_bytes(std::string_view dtype);

// The content key of a tensor: its name's hash, so the bytes follow from the name alone.
uint64_t model_tensor_key(std::string_view name);
// The seed a file's __metadata__ holds (iofab_seed); false when it has none (not iofab's file).
bool metadata_seed(const std::map<std::string, std::string>& metadata, uint64_t* seed);

// Fills buf with bytes [offset, offset + len) of file f (header, then its tensors' content at seed).
void fill_model_file(const ModelFile& f, uint64_t seed, uint64_t offset, unsigned char* buf, size_t len);

// {"metadata": {"total_size": N, ...}, "weight_map": {tensor: file}}, as transformers writes it; iofab adds
// the full model's size and parameters to the metadata (iofab_full_size, iofab_parameters), so a later
// phase that reads the files projects to full size.
std::string model_index_json(const ModelFiles& files);
struct ModelIndex {
  std::vector<std::string> files;  // each once, sorted, as transformers loads them
  uint64_t total_size = 0;         // the tensors' bytes
  uint64_t full_size = 0;          // at full size; total_size when the index does not say
  uint64_t parameters = 0;         // 0 when the index does not say
};
Status parse_model_index(std::string_view text, ModelIndex* out);

}  // namespace iofab
