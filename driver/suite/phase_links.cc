#include "driver/suite/phase_links.h"

#include <optional>
#include <string>
#include <string_view>

#include "workloads/checkpoint/model_spec.h"
#include "workloads/checkpoint/presets.h"

namespace iofab {

namespace {

std::string string_param(const PhaseSpec& p, const char* key) {
  const auto it = p.params.find(key);
  return it != p.params.end() && it->is_string() ? it->get<std::string>() : "";
}

// "a, b" or "none": the phases of kind that run before position `before`.
std::string earlier_of(const std::vector<PhaseSpec>& phases, size_t before, std::string_view kind) {
  std::string out;
  for (size_t k = 0; k < before; ++k) {
    if (phases[k].kind->name == kind) out += (out.empty() ? "" : ", ") + phases[k].name;
  }
  return out.empty() ? "none" : out;
}

// Phase i's param `key` names phase `named`, which must be of `kind`, run before it and not beside it in
// its concurrent group; `what` is what it leaves for phase i ("its checkpoint"). Returns the named phase's
// position when it is such a phase.
std::optional<size_t> check_link(const std::vector<PhaseSpec>& phases, size_t i, const std::string& path,
                                 const char* key, std::string_view kind, const std::string& named,
                                 std::string_view what, std::vector<std::string>* errors) {
  const PhaseSpec& p = phases[i];
  const std::string k_name(kind);
  const std::string expected = "expected the name of a " + k_name + " phase that runs before " + p.name +
                               " (earlier " + k_name + " phases: " + earlier_of(phases, i, kind) + ")";
  const std::string at = path + "." + key + ": ";
  size_t k = 0;
  while (k < phases.size() && phases[k].name != named) ++k;
  if (k == phases.size()) {
    errors->push_back(at + "no phase named \"" + named + "\"; " + expected);
  } else if (phases[k].kind->name != kind) {
    errors->push_back(at + "phase \"" + named + "\" is a " + std::string(phases[k].kind->name) + " phase, not a " +
                      k_name + "; " + expected);
  } else if (k > i) {
    errors->push_back(at + "phase \"" + named + "\" runs after " + p.name + ", so it has written nothing yet; " +
                      expected);
  } else if (p.group >= 0 && phases[k].group == p.group) {
    errors->push_back(at + "phase \"" + named + "\" runs at the same time as " + p.name +
                      " (the same concurrent group), so " + std::string(what) + " is not there to read; " + expected);
  } else {
    return k;
  }
  return std::nullopt;
}

// The restore param that makes it load tensors (reshard_to, weights_only, read: "tensors"); "" for files.
std::string tensor_read_param(const PhaseSpec& p) {
  if (p.params.contains("reshard_to")) return "reshard_to";
  const auto w = p.params.find("weights_only");
  if (w != p.params.end() && w->is_boolean() && w->get<bool>()) return "weights_only";
  if (string_param(p, "read") == "tensors") return "read";
  return "";
}

// Why checkpoint phase c writes no tensor index (a restore that loads tensors needs one); "" when it does:
// a model (preset or model) with formula "exact", in layout dcp or megatron.
std::string why_no_tensor_index(const PhaseSpec& c) {
  const std::string layout = string_param(c, "layout");
  if (layout != "dcp" && layout != "megatron") {
    return "its layout is \"" + (layout.empty() ? std::string("shards") : layout) +
           "\", which keeps no tensor index";
  }
  TransformerSpec spec;
  if (const ModelPreset* preset = find_model_preset(string_param(c, "preset")); preset != nullptr) {
    spec = preset->spec;
  }
  const auto model = c.params.find("model");
  if (model != c.params.end() && !parse_model_spec(*model, "model", &spec).ok()) return "";  // its own error
  if (spec.formula != ModelFormula::kExact) {
    return "its model follows DLIO's rules (formula \"dlio\"), whose pieces do not add up to whole tensors";
  }
  return "";
}

void check_restore(const std::vector<PhaseSpec>& phases, size_t i, const std::string& path,
                   std::vector<std::string>* errors) {
  const PhaseSpec& p = phases[i];
  if (!string_param(p, "from").empty()) return;  // a folder elsewhere: read at run time
  const std::string named = string_param(p, "checkpoint");
  std::optional<size_t> source;
  if (named.empty()) {
    if (earlier_of(phases, i, "checkpoint") == "none") {
      errors->push_back(path + ": nothing to restore: no checkpoint phase runs before " + p.name +
                        "; put one before it, or give `from` (a checkpoint folder of another run)");
      return;
    }
    // The nearest earlier one: it commits last.
    for (size_t k = 0; k < i; ++k) {
      if (phases[k].kind->name == "checkpoint") source = k;
    }
  } else {
    source = check_link(phases, i, path, "checkpoint", "checkpoint", named, "its checkpoint", errors);
  }
  // Loading tensors needs the checkpoint's tensor index: known now, not after the checkpoint is written.
  const std::string tensors = tensor_read_param(p);
  if (!source || tensors.empty()) return;
  if (const std::string why = why_no_tensor_index(phases[*source]); !why.empty()) {
    errors->push_back(path + "." + tensors + ": loads tensors, but checkpoint phase " + phases[*source].name +
                      " writes no tensor index: " + why +
                      "; write it with a model (preset or model, formula \"exact\") and layout \"dcp\" or "
                      "\"megatron\", or restore whole files (read: \"files\")");
  }
}

// weights_from: an earlier model_load phase that wrote its own files.
void check_model_load(const std::vector<PhaseSpec>& phases, size_t i, const std::string& path,
                      std::vector<std::string>* errors) {
  const std::string named = string_param(phases[i], "weights_from");
  if (named.empty()) return;
  const std::optional<size_t> k =
      check_link(phases, i, path, "weights_from", "model_load", named, "its files", errors);
  if (!k) return;
  const std::string theirs = string_param(phases[*k], "weights_from");
  if (!theirs.empty()) {
    errors->push_back(path + ".weights_from: phase \"" + named + "\" writes no files: it reads \"" + theirs +
                      "\"'s (its weights_from); name \"" + theirs + "\"");
  }
}

}  // namespace

void check_phase_links(const std::vector<PhaseSpec>& phases, const std::vector<std::string>& paths,
                       std::vector<std::string>* errors) {
  for (size_t i = 0; i < phases.size(); ++i) {
    if (phases[i].kind->name == "restore") check_restore(phases, i, paths[i], errors);
    if (phases[i].kind->name == "model_load") check_model_load(phases, i, paths[i], errors);
  }
}

}  // namespace iofab
