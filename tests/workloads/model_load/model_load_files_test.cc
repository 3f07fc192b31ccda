// The safetensors files model_load writes and reads: the split, the names, the header (JSON a parser
// reads, offsets that tile the data), the index, and the loader's check of a file's bytes (a corrupted
// byte anywhere is caught and named).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workloads/checkpoint/presets.h"
#include "workloads/model_load/file_check.h"
#include "workloads/model_load/model_files.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

TransformerSpec llama8b() { return find_model_preset("llama3-8b")->spec; }

// A small model: 2 layers, each tensor a few KiB.
TransformerSpec tiny() {
  TransformerSpec s = llama8b();
  s.layers = 2;
  s.hidden = 256;
  s.ffn = 512;
  s.vocab = 1000;
  s.heads = 4;
  s.kv_heads = 2;
  return s;
}

std::string whole_file(const ModelFile& f, uint64_t seed) {
  std::string bytes(f.bytes, '\0');
  fill_model_file(f, seed, 0, reinterpret_cast<unsigned char*>(bytes.data()), bytes.size());
  return bytes;
}

Status check_in_pieces(const std::string& bytes, size_t piece) {
  SafetensorsCheck check(bytes.size());
  for (size_t at = 0; at < bytes.size(); at += piece) {
    const size_t n = std::min(piece, bytes.size() - at);
    check.feed(reinterpret_cast<const unsigned char*>(bytes.data() + at), n, at);
  }
  return check.finish();
}

TEST(ModelFiles, Llama3_8bIsFourFilesOfBf16WeightsAsHuggingFaceShipsIt) {
  const ModelFiles m = plan_model_files(llama8b(), 1, kDefaultMaxShardBytes, 1);
  EXPECT_EQ(m.parameters, 8030261248u);  // Meta-Llama-3-8B's published count
  EXPECT_EQ(m.full_tensor_bytes, 2 * m.parameters);
  EXPECT_EQ(m.tensor_bytes, m.full_tensor_bytes);
  EXPECT_EQ(m.tensors, 32u * 9 + 3);  // 9 a layer, embedding, final norm, lm_head
  ASSERT_EQ(m.files.size(), 4u);
  EXPECT_EQ(m.files[0].name, "model-00001-of-00004.safetensors");
  EXPECT_EQ(m.files[3].name, "model-00004-of-00004.safetensors");
  EXPECT_EQ(m.files[0].tensors[0].name, "model.embed_tokens.weight");
  EXPECT_EQ(m.files[0].tensors[0].shape, (std::vector<uint64_t>{128256, 4096}));
  EXPECT_EQ(m.files[0].tensors[0].dtype, "BF16");
  EXPECT_EQ(m.files.back().tensors.front().name, "lm_head.weight");  // "lm_head" sorts before "model."
  for (const ModelFile& f : m.files) EXPECT_LE(f.bytes - f.header.size(), kDefaultMaxShardBytes) << f.name;
}

// Derived by hand from the upstream rules. transformers' save_pretrained splits the state dict in its
// order (huggingface_hub serialization/_base.py, split_state_dict_into_shards_factory: a tensor that would
// pass max_shard_size, "5GB" = 5e9 bytes, starts the next file); LlamaDecoderLayer registers self_attn
// (q, k, v, o), mlp (gate, up, down), input_layernorm, post_attention_layernorm in that order
// (transformers models/llama/modeling_llama.py). Bytes, bf16: embedding and lm_head 1,050,673,152; a
// layer 436,224,000 (q, o 33,554,432; k, v 8,388,608; gate, up, down 117,440,512; norms 8,192).
// File 1: the embedding and layers 0-8 (4,976,689,152; layer 9's q_proj does not fit). File 2: layers
// 9-19 and layer 20's q, k, v, o, gate (4,999,790,592). File 3: the rest of layer 20, layers 21-30 and
// layer 31's q, k, v, o, gate, up (4,915,904,512). File 4: layer 31's down and norms, the final norm,
// lm_head (1,168,138,240): Meta's four files of 4.98, 5.00, 4.92 and 1.17 GB.
TEST(ModelFiles, Llama3_8bSplitsWhereSavePretrainedSplitsIt) {
  const ModelFiles m = plan_model_files(llama8b(), 1, kDefaultMaxShardBytes, 1);
  ASSERT_EQ(m.files.size(), 4u);
  const uint64_t expected[] = {4'976'689'152ULL, 4'999'790'592ULL, 4'915'904'512ULL, 1'168'138'240ULL};
  std::map<std::string, size_t> file_of;
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(m.files[k].bytes - m.files[k].header.size(), expected[k]) << m.files[k].name;
    for (const SafetensorsTensor& t : m.files[k].tensors) file_of[t.name] = k + 1;
  }
  // The five norms a norm-first order would place one file earlier.
  EXPECT_EQ(file_of["model.layers.9.input_layernorm.weight"], 2u);
  EXPECT_EQ(file_of["model.layers.20.mlp.gate_proj.weight"], 2u);
  EXPECT_EQ(file_of["model.layers.20.input_layernorm.weight"], 3u);
  EXPECT_EQ(file_of["model.layers.20.post_attention_layernorm.weight"], 3u);
  EXPECT_EQ(file_of["model.layers.31.mlp.up_proj.weight"], 3u);
  EXPECT_EQ(file_of["model.layers.31.input_layernorm.weight"], 4u);
  EXPECT_EQ(file_of["model.layers.31.post_attention_layernorm.weight"], 4u);
}

// safetensors' serialize (safetensors/src/tensor.rs, prepare) sorts a file's tensors by dtype, then by name,
// and lays out the data and the header in that order; save_pretrained's index is json.dumps(...,
// sort_keys=True).
TEST(ModelFiles, AFilesTensorsLieInNameOrderAndTheIndexIsSorted) {
  const ModelFiles m = plan_model_files(llama8b(), 1000, kDefaultMaxShardBytes, 1);
  for (const ModelFile& f : m.files) {
    for (size_t i = 1; i < f.tensors.size(); ++i) {
      EXPECT_LT(f.tensors[i - 1].name, f.tensors[i].name) << f.name;
      EXPECT_EQ(f.tensors[i].begin, f.tensors[i - 1].end) << f.name;
    }
  }
  // The header lists them in the same order: in the second file (layers 9 to 20), "model.layers.10."
  // before "model.layers.9.".
  ASSERT_GE(m.files.size(), 2u);
  const std::string& h = m.files[1].header;
  ASSERT_NE(h.find("model.layers.9.input_layernorm"), std::string::npos);
  EXPECT_LT(h.find("model.layers.10.input_layernorm"), h.find("model.layers.9.input_layernorm"));
  const std::string index = model_index_json(m);
  EXPECT_LT(index.find("\"iofab_full_size\""), index.find("\"total_size\""));
  EXPECT_LT(index.find("\"lm_head.weight\""), index.find("\"model.embed_tokens.weight\""));
  EXPECT_LT(index.find("\"model.layers.10.input_layernorm.weight\""),
            index.find("\"model.layers.2.input_layernorm.weight\""));
}

TEST(ModelFiles, AScaleKeepsTheFileCountAndEveryTensorsColumns) {
  const ModelFiles full = plan_model_files(llama8b(), 1, kDefaultMaxShardBytes, 1);
  const ModelFiles m = plan_model_files(llama8b(), 1000, kDefaultMaxShardBytes, 1);
  ASSERT_EQ(m.files.size(), full.files.size());
  EXPECT_EQ(m.tensors, full.tensors);
  EXPECT_EQ(m.full_tensor_bytes, full.full_tensor_bytes);
  EXPECT_NEAR(static_cast<double>(m.tensor_bytes), static_cast<double>(full.tensor_bytes) / 1000,
              static_cast<double>(full.tensor_bytes) / 1000 * 0.1);
  const auto q_at = std::find_if(m.files[0].tensors.begin(), m.files[0].tensors.end(), [](const auto& t) {
    return t.name == "model.layers.0.self_attn.q_proj.weight";
  });
  ASSERT_NE(q_at, m.files[0].tensors.end());
  const SafetensorsTensor& q = *q_at;
  EXPECT_EQ(q.shape, (std::vector<uint64_t>{4, 4096}));  // 4096 rows / 1000, the columns kept
}

TEST(ModelFiles, TheHeaderIsJsonWhoseOffsetsCoverTheDataExactly) {
  const ModelFiles m = plan_model_files(tiny(), 1, 1'000'000, 7);
  ASSERT_GT(m.files.size(), 1u);
  uint64_t tensors = 0;
  for (const ModelFile& f : m.files) {
    const std::string bytes = whole_file(f, 7);
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = n << 8 | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
    ASSERT_EQ(8 + n, f.header.size());
    EXPECT_EQ(n % 8, 0u) << "padded to 8 bytes, as safetensors does";
    // A plain JSON parser reads it.
    const json h = json::parse(bytes.substr(8, n));
    ASSERT_TRUE(h.is_object());
    EXPECT_EQ(h["__metadata__"]["format"], "pt");
    EXPECT_EQ(h["__metadata__"]["iofab_seed"], "7");
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    for (const auto& [name, t] : h.items()) {
      if (name == "__metadata__") continue;
      uint64_t elements = 1;
      for (const auto& d : t["shape"]) elements *= d.get<uint64_t>();
      const uint64_t b = t["data_offsets"][0], e = t["data_offsets"][1];
      EXPECT_EQ(e - b, elements * 2) << name;
      spans.emplace_back(b, e);
      ++tensors;
    }
    std::sort(spans.begin(), spans.end());
    uint64_t at = 0;
    for (const auto& [b, e] : spans) {
      EXPECT_EQ(b, at);
      at = e;
    }
    EXPECT_EQ(8 + n + at, bytes.size()) << "nothing after the last tensor";
  }
  EXPECT_EQ(tensors, m.tensors);
}

TEST(ModelFiles, TheIndexNamesEveryTensorsFileAndTheSizes) {
  const ModelFiles m = plan_model_files(tiny(), 1, 1'000'000, 1);
  const std::string text = model_index_json(m);
  const json j = json::parse(text);
  EXPECT_EQ(j["metadata"]["total_size"], m.tensor_bytes);
  EXPECT_EQ(j["weight_map"].size(), m.tensors);
  EXPECT_EQ(j["weight_map"]["lm_head.weight"], m.files.back().name);
  ModelIndex ix;
  ASSERT_TRUE(parse_model_index(text, &ix).ok());
  ASSERT_EQ(ix.files.size(), m.files.size());
  for (size_t i = 0; i < ix.files.size(); ++i) EXPECT_EQ(ix.files[i], m.files[i].name);
  EXPECT_EQ(ix.total_size, m.tensor_bytes);
  EXPECT_EQ(ix.full_size, m.full_tensor_bytes);
  EXPECT_EQ(ix.parameters, m.parameters);
  EXPECT_FALSE(parse_model_index(R"({"weight_map": {"a": "../x"}})", &ix).ok());
  EXPECT_FALSE(parse_model_index(R"({"weight_map": {}})", &ix).ok());
  EXPECT_FALSE(parse_model_index("[]", &ix).ok());
}

TEST(ModelFiles, ParsingRefusesHeadersThatDoNotTileTheData) {
  ParsedHeader h;
  const auto t = [](const char* name, uint64_t b, uint64_t e, uint64_t rows) {
    return "\"" + std::string(name) + "\": {\"dtype\": \"BF16\", \"shape\": [" + std::to_string(rows) +
           "], \"data_offsets\": [" + std::to_string(b) + ", " + std::to_string(e) + "]}";
  };
  EXPECT_TRUE(parse_safetensors_header("{" + t("a", 0, 8, 4) + ", " + t("b", 8, 12, 2) + "}", 12, &h).ok());
  ASSERT_EQ(h.tensors.size(), 2u);
  EXPECT_EQ(h.tensors[1].name, "b");
  const std::string gap =
      parse_safetensors_header("{" + t("a", 0, 8, 4) + ", " + t("b", 10, 14, 2) + "}", 14, &h).message();
  EXPECT_NE(gap.find("\"b\" starts at 10"), std::string::npos) << gap;
  EXPECT_NE(parse_safetensors_header("{" + t("a", 0, 8, 4) + ", " + t("b", 6, 10, 2) + "}", 10, &h)
                .message()
                .find("overlap"),
            std::string::npos);
  EXPECT_NE(
      parse_safetensors_header("{" + t("a", 0, 8, 3) + "}", 8, &h).message().find("shape and dtype make 6"),
      std::string::npos);
  EXPECT_NE(parse_safetensors_header("{" + t("a", 0, 8, 4) + "}", 9, &h).message().find("file holds 9"),
            std::string::npos);
  EXPECT_NE(parse_safetensors_header(R"({"a": {"dtype": "Q4", "shape": [1], "data_offsets": [0, 1]}})", 1, &h)
                .message()
                .find("unknown dtype"),
            std::string::npos);
  EXPECT_FALSE(parse_safetensors_header("[1]", 0, &h).ok());
  EXPECT_FALSE(parse_safetensors_header("{\"a\": 1", 0, &h).ok());
  EXPECT_TRUE(parse_safetensors_header("{}", 0, &h).ok());
}

TEST(ModelFiles, TheLoadersCheckPassesAWholeFileInAnyPieces) {
  const ModelFiles m = plan_model_files(tiny(), 1, 1'000'000, 3);
  for (const ModelFile& f : m.files) {
    const std::string bytes = whole_file(f, 3);
    for (size_t piece : {size_t{1} << 20, size_t{4096}, size_t{777}, size_t{5}}) {
      const Status s = check_in_pieces(bytes, piece);
      EXPECT_TRUE(s.ok()) << f.name << " in pieces of " << piece << ": " << s.message();
    }
  }
}

TEST(ModelFiles, ACorruptedByteIsCaughtAndNamed) {
  const ModelFiles m = plan_model_files(tiny(), 1, 1'000'000, 3);
  const ModelFile& f = m.files[0];
  std::string bytes = whole_file(f, 3);
  // In a tensor: named, with its byte.
  const SafetensorsTensor& t = f.tensors[1];
  std::string data = bytes;
  data[f.header.size() + t.begin + 100] ^= 1;
  Status s = check_in_pieces(data, 4096);
  EXPECT_NE(s.message().find("corrupt: tensor " + t.name + " differs at its byte 100"), std::string::npos)
      << s.message();
  // The last byte of the file.
  data = bytes;
  data.back() ^= 0x80;
  EXPECT_NE(check_in_pieces(data, 4096).message().find("corrupt: tensor"), std::string::npos);
  // In the header: it no longer parses, or it no longer tiles the data.
  data = bytes;
  data[10] = '[';
  EXPECT_NE(check_in_pieces(data, 4096).message().find("header"), std::string::npos);
  // The length.
  data = bytes;
  data[7] = 1;
  EXPECT_NE(check_in_pieces(data, 4096).message().find("header length"), std::string::npos);
  // Short: the file ended early.
  SafetensorsCheck check(bytes.size());
  check.feed(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size() - 10, 0);
  EXPECT_NE(check.finish().message().find("read " + std::to_string(bytes.size() - 10)), std::string::npos);
  // Another seed's bytes are not this file's.
  const std::string other = whole_file(plan_model_files(tiny(), 1, 1'000'000, 4).files[0], 4);
  data = bytes.substr(0, f.header.size()) + other.substr(f.header.size());
  EXPECT_NE(check_in_pieces(data, 4096).message().find("corrupt"), std::string::npos);
}

TEST(ModelFiles, AFileWithoutIofabsSeedCannotBeChecked) {
  std::vector<SafetensorsTensor> ts = {{"w", "F32", {2}, 0, 8}};
  const std::string header = safetensors_header(ts, {{"format", "pt"}});
  const std::string bytes = header + std::string(8, '\0');
  EXPECT_NE(check_in_pieces(bytes, 64).message().find("no iofab_seed"), std::string::npos);
}

}  // namespace
}  // namespace iofab::testing
