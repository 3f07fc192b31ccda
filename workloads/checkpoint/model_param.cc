#include "workloads/checkpoint/model_param.h"

#include <string>
#include <vector>

#include "harness/phase/params.h"
#include "workloads/checkpoint/presets.h"

namespace iofab {

bool read_model_param(ParamReader& r, TransformerSpec* spec, bool* valid) {
  const bool has_preset = r.raw("preset") != nullptr;
  const nlohmann::json* model = r.raw("model");
  *valid = false;
  if (!has_preset && model == nullptr) return false;
  TransformerSpec read;
  bool ok = true;
  if (has_preset) {
    const std::string name = r.choice(
        "preset", "", [](std::string_view n) { return find_model_preset(n) != nullptr; },
        [] {
          std::vector<std::string> names;
          for (const auto& m : model_presets()) names.emplace_back(m.name);
          return names;
        });
    const ModelPreset* preset = find_model_preset(name);
    ok = preset != nullptr;
    if (ok) read = preset->spec;
  }
  if (ok && model != nullptr) {
    const Status st = parse_model_spec(*model, r.path_of("model"), &read);
    if (!st.ok()) {
      // One error a line, each naming its field.
      std::string line;
      for (char c : st.message() + "\n") {
        if (c != '\n') {
          line += c;
        } else if (!line.empty()) {
          r.fail_at_path(line);
          line.clear();
        }
      }
      ok = false;
    }
  }
  if (ok) *spec = read;
  *valid = ok;
  return true;
}

}  // namespace iofab
