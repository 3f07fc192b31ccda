#include "workloads/restore/links.h"

#include <string>

#include "workloads/checkpoint/model_spec.h"
#include "workloads/checkpoint/presets.h"

namespace iofab {

namespace {

using nlohmann::json;

std::string string_param(const json& params, const char* key) {
  const auto it = params.find(key);
  return it != params.end() && it->is_string() ? it->get<std::string>() : "";
}

// The restore param that makes it load tensors (reshard_to, weights_only, read: "tensors"); "" for files.
std::string tensor_read_param(const json& p) {
  if (p.contains("reshard_to")) return "reshard_to";
  const auto w = p.find("weights_only");
  if (w != p.end() && w->is_boolean() && w->get<bool>()) return "weights_only";
  if (string_param(p, "read") == "tensors") return "read";
  return "";
}

// Why a checkpoint phase with params c writes no tensor index (a restore that loads tensors needs one);
// "" when it does: a model (preset or model) with formula "exact", in layout dcp or megatron.
std::string why_no_tensor_index(const json& c) {
  const std::string layout = string_param(c, "layout");
  if (layout != "dcp" && layout != "megatron") {
    return "its layout is \"" + (layout.empty() ? std::string("shards") : layout) +
           "\", which keeps no tensor index";
  }
  TransformerSpec spec;
  if (const ModelPreset* preset = find_model_preset(string_param(c, "preset")); preset != nullptr) {
    spec = preset->spec;
  }
  const auto model = c.find("model");
  if (model != c.end() && !parse_model_spec(*model, "model", &spec).ok()) return "";  // its own error
  if (spec.formula != ModelFormula::kExact) {
    return "its model follows DLIO's rules (formula \"dlio\"), whose pieces do not add up to whole tensors";
  }
  return "";
}

// Loading tensors needs the checkpoint's tensor index: known when the suite is read, not after the
// checkpoint is written.
std::string tensor_index_problem(const json& params, const json& source, const std::string& source_name) {
  const std::string tensors = tensor_read_param(params);
  if (tensors.empty()) return "";
  const std::string why = why_no_tensor_index(source);
  if (why.empty()) return "";
  return "." + tensors + ": loads tensors, but checkpoint phase " + source_name +
         " writes no tensor index: " + why +
         "; write it with a model (preset or model, formula \"exact\") and layout \"dcp\" or "
         "\"megatron\", or restore whole files (read: \"files\")";
}

constexpr PhaseLink kRestoreLinks[] = {
    {.param = "checkpoint",
     .kind = "checkpoint",
     .what = "its checkpoint",
     .missing = "nothing to restore",
     .missing_hint = "put one before it, or give `from` (a checkpoint folder of another run)",
     .unless_param = "from",
     .read_back = true,
     .check_source = &tensor_index_problem},
};

}  // namespace

std::span<const PhaseLink> restore_links() { return kRestoreLinks; }

}  // namespace iofab
