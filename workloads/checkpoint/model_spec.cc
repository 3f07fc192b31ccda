#include "workloads/checkpoint/model_spec.h"

#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "harness/core/text.h"
#include "harness/core/units.h"
#include "harness/phase/params.h"

namespace iofab {

using nlohmann::json;

uint32_t dtype_bytes(Dtype d) {
  switch (d) {
    case Dtype::kNone:
      return 0;
    case Dtype::kFp8:
      return 1;
    case Dtype::kBf16:
    case Dtype::kFp16:
      return 2;
    case Dtype::kFp32:
      return 4;
  }
  return 0;
}

std::string_view dtype_name(Dtype d) {
  switch (d) {
    case Dtype::kNone:
      return "none";
    case Dtype::kFp8:
      return "fp8";
    case Dtype::kBf16:
      return "bf16";
    case Dtype::kFp16:
      return "fp16";
    case Dtype::kFp32:
      return "fp32";
  }
  return "none";
}

std::string_view formula_name(ModelFormula f) { return f == ModelFormula::kDlio ? "dlio" : "exact"; }

namespace {

std::optional<Dtype> dtype_from(std::string_view s, bool none_ok) {
  for (Dtype d : {Dtype::kFp8, Dtype::kBf16, Dtype::kFp16, Dtype::kFp32}) {
    if (s == dtype_name(d)) return d;
  }
  if (none_ok && s == "none") return Dtype::kNone;
  return std::nullopt;
}

// A whole number as JSON writes it, or as a count in a string ("128256", "8e3").
std::optional<uint64_t> whole(const json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer()) {
    const auto i = v.get<int64_t>();
    return i < 0 ? std::nullopt : std::optional<uint64_t>(static_cast<uint64_t>(i));
  }
  std::optional<double> d;
  if (v.is_number_float()) d = v.get<double>();
  if (v.is_string()) d = units::parse_count(v.get<std::string>());
  // 2^53: above it a double no longer holds every whole number.
  if (!d || !std::isfinite(*d) || *d < 0 || *d != std::floor(*d) || *d > 0x1p53) return std::nullopt;
  return static_cast<uint64_t>(*d);
}

// Says that key's value got is not the expected form (the caller adds the path).
using Bad = std::function<void(const std::string& key, const std::string& expected, const json& got)>;
// Reads one field's value into the spec, or says through Bad why not.
using Reader = std::function<void(const std::string& key, const json& v)>;

Reader count_field(uint64_t* out, uint64_t min, uint64_t max, const char* example, const Bad& bad) {
  return [=](const std::string& key, const json& v) {
    const auto n = whole(v);
    if (n && *n >= min && *n <= max) {
      *out = *n;
    } else {
      bad(key,
          "a whole number from " + std::to_string(min) + " to " + std::to_string(max) + " like " + example,
          v);
    }
  };
}

Reader dtype_field(Dtype* out, bool none_ok, const Bad& bad) {
  return [=](const std::string& key, const json& v) {
    const auto d = v.is_string() ? dtype_from(v.get<std::string>(), none_ok) : std::nullopt;
    if (d) {
      *out = *d;
    } else {
      bad(key,
          none_ok ? "one of \"fp32\", \"bf16\", \"fp16\", \"fp8\", \"none\""
                  : "one of \"fp32\", \"bf16\", \"fp16\", \"fp8\"",
          v);
    }
  };
}

Reader name_field(std::string* out, const Bad& bad) {
  return [=](const std::string& key, const json& v) {
    if (v.is_string() && v.get<std::string>().size() <= 100) {
      *out = v.get<std::string>();
    } else {
      bad(key, "a string of at most 100 characters", v);
    }
  };
}

Reader bool_field(bool* out, const Bad& bad) {
  return [=](const std::string& key, const json& v) {
    if (v.is_boolean()) {
      *out = v.get<bool>();
    } else {
      bad(key, "true or false", v);
    }
  };
}

Reader zero_field(int* out, const Bad& bad) {
  return [=](const std::string& key, const json& v) {
    const auto n = whole(v);
    if (n && *n <= 3) {
      *out = static_cast<int>(*n);
    } else if (v.is_string() && v.get<std::string>() == "fsdp") {
      *out = 3;  // FSDP's full sharding holds what ZeRO-3 holds
    } else {
      bad(key, "a ZeRO stage 0, 1, 2 or 3, or \"fsdp\" (full sharding, as stage 3)", v);
    }
  };
}

Reader formula_field(ModelFormula* out, const Bad& bad) {
  return [=](const std::string& key, const json& v) {
    if (v == "exact") {
      *out = ModelFormula::kExact;
    } else if (v == "dlio") {
      *out = ModelFormula::kDlio;
    } else {
      bad(key, "\"exact\" (every tensor of the architecture) or \"dlio\" (DLIO's rules, as MLPerf Storage)",
          v);
    }
  };
}

// A model object's fields, each with the reader that fills spec's member.
std::map<std::string, Reader, std::less<>> model_fields(TransformerSpec* spec, const Bad& bad) {
  return {
      {"name", name_field(&spec->name, bad)},
      {"layers", count_field(&spec->layers, 1, kMaxModelLayers, "80", bad)},
      {"hidden", count_field(&spec->hidden, 1, kMaxModelHidden, "8192", bad)},
      {"ffn", count_field(&spec->ffn, 1, kMaxModelFfn, "28672", bad)},
      {"vocab", count_field(&spec->vocab, 1, kMaxModelVocab, "128256", bad)},
      {"heads", count_field(&spec->heads, 1, kMaxModelHidden, "64", bad)},
      {"kv_heads", count_field(&spec->kv_heads, 1, kMaxModelHidden, "8", bad)},
      {"tied_embeddings", bool_field(&spec->tied_embeddings, bad)},
      {"dtype", dtype_field(&spec->weights, false, bad)},
      {"master_dtype", dtype_field(&spec->master, true, bad)},
      {"optimizer_dtype", dtype_field(&spec->moments, true, bad)},
      {"tensor", count_field(&spec->tensor, 1, kMaxModelRanks, "8", bad)},
      {"pipeline", count_field(&spec->pipeline, 1, kMaxModelRanks, "4", bad)},
      {"data", count_field(&spec->data, 1, kMaxModelRanks, "16", bad)},
      {"zero", zero_field(&spec->zero, bad)},
      {"formula", formula_field(&spec->formula, bad)},
  };
}

}  // namespace

Status parse_model_spec(const json& j, const std::string& path, TransformerSpec* spec) {
  if (!j.is_object()) {
    return Status::Invalid(path + ": expected an object like {\"layers\": 80, \"hidden\": 8192, ...}, got " +
                           describe_json_value(j));
  }
  std::vector<std::string> errors;
  const Bad bad = [&](const std::string& key, const std::string& expected, const json& got) {
    errors.push_back(path + "." + key + ": expected " + expected + ", got " + describe_json_value(got));
  };
  const auto fields = model_fields(spec, bad);
  for (const auto& [key, value] : j.items()) {
    auto it = fields.find(key);
    if (it == fields.end()) {
      std::string known;
      for (const auto& f : fields) known += (known.empty() ? "" : ", ") + f.first;
      errors.push_back(path + "." + key + ": unknown field; a model takes " + known);
      continue;
    }
    it->second(key, value);
  }
  if (!errors.empty()) return Status::Invalid(join(errors, "\n"));
  return check_model_spec(*spec, path);
}

Status check_model_spec(const TransformerSpec& s, const std::string& path) {
  std::vector<std::string> errors;
  auto need = [&](bool ok, const std::string& field, const std::string& message) {
    if (!ok) errors.push_back(path + "." + field + ": " + message);
  };
  need(s.layers > 0, "layers", "required: the number of transformer layers, like 80");
  need(s.hidden > 0, "hidden", "required: the hidden size, like 8192");
  need(s.ffn > 0, "ffn", "required: the feed-forward (SwiGLU) inner size, like 28672");
  need(s.vocab > 0, "vocab", "required: the vocabulary size, like 128256");
  need(s.heads > 0, "heads", "required: the attention heads, like 64");
  need(s.kv_heads > 0, "kv_heads", "required: the key/value heads (grouped-query attention), like 8");
  if (!errors.empty()) return Status::Invalid(join(errors, "\n"));
  need(s.heads <= s.hidden, "heads", "must be at most hidden (" + std::to_string(s.hidden) + ")");
  need(s.kv_heads <= s.heads, "kv_heads", "must be at most heads (" + std::to_string(s.heads) + ")");
  if (s.formula == ModelFormula::kExact) {
    // DLIO rounds the head size down (MLPerf's 1T model has 25872 / 192); the exact count needs it whole.
    need(s.hidden % s.heads == 0, "heads",
         "must divide hidden (" + std::to_string(s.hidden) + ") with formula \"exact\"");
    need(s.heads % s.kv_heads == 0, "kv_heads",
         "must divide heads (" + std::to_string(s.heads) + ") with formula \"exact\"");
  } else {
    need(!s.tied_embeddings, "tied_embeddings",
         "must be false with formula \"dlio\" (DLIO always counts the output layer)");
    need(s.master == Dtype::kFp32 || s.master == Dtype::kNone, "master_dtype",
         "with formula \"dlio\" the optimizer's three groups all take optimizer_dtype; leave master_dtype "
         "out");
  }
  // Every count below then fits 64 bits with room: 1e15 parameters x 14 bytes is below 2^54.
  const double h = static_cast<double>(s.hidden);
  const double kv = static_cast<double>(s.kv_heads) * static_cast<double>(s.head_dim());
  const double estimate =
      static_cast<double>(s.layers) * (2 * h + h * (2 * h + 2 * kv) + 3 * h * static_cast<double>(s.ffn)) +
      2 * h * static_cast<double>(s.vocab) + h;
  need(estimate <= 1e15, "layers",
       "this model has about " + std::to_string(static_cast<long long>(estimate / 1e12)) +
           "e12 parameters; at most 1e15 are planned");
  need(s.pipeline <= s.layers, "pipeline",
       "must be at most layers (" + std::to_string(s.layers) + "): a stage holds at least one layer");
  need(s.tensor * s.pipeline <= kMaxModelRanks && s.ranks() <= kMaxModelRanks, "data",
       "tensor x pipeline x data must be at most " + std::to_string(kMaxModelRanks) + " ranks");
  return errors.empty() ? Status::Ok() : Status::Invalid(join(errors, "\n"));
}

json to_json(const TransformerSpec& s) {
  json j = {{"layers", s.layers},
            {"hidden", s.hidden},
            {"ffn", s.ffn},
            {"vocab", s.vocab},
            {"heads", s.heads},
            {"kv_heads", s.kv_heads},
            {"tied_embeddings", s.tied_embeddings},
            {"dtype", dtype_name(s.weights)},
            {"master_dtype", dtype_name(s.master)},
            {"optimizer_dtype", dtype_name(s.moments)},
            {"tensor", s.tensor},
            {"pipeline", s.pipeline},
            {"data", s.data},
            {"zero", s.zero},
            {"formula", formula_name(s.formula)}};
  if (!s.name.empty()) j["name"] = s.name;
  return j;
}

}  // namespace iofab
