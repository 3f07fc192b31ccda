#include "harness/suite/phase_links.h"

namespace iofab {

namespace {

std::string string_param(const PhaseSpec& p, const char* key) {
  const auto it = p.params.find(key);
  return it != p.params.end() && it->is_string() ? it->get<std::string>() : "";
}

// "a, b" or "none": the checkpoint phases that run before position `before`.
std::string earlier_checkpoints(const std::vector<PhaseSpec>& phases, size_t before) {
  std::string out;
  for (size_t k = 0; k < before; ++k) {
    if (phases[k].kind->name == "checkpoint") out += (out.empty() ? "" : ", ") + phases[k].name;
  }
  return out.empty() ? "none" : out;
}

}  // namespace

void check_phase_links(const std::vector<PhaseSpec>& phases, const std::vector<std::string>& paths,
                       std::vector<std::string>* errors) {
  for (size_t i = 0; i < phases.size(); ++i) {
    const PhaseSpec& p = phases[i];
    if (p.kind->name != "restore") continue;
    const std::string& path = paths[i];
    if (!string_param(p, "from").empty()) continue;  // a folder elsewhere: read at run time
    const std::string named = string_param(p, "checkpoint");
    const std::string expected =
        "expected the name of a checkpoint phase that runs before " + p.name +
        " (earlier checkpoint phases: " + earlier_checkpoints(phases, i) + ")";
    if (named.empty()) {
      if (earlier_checkpoints(phases, i) == "none") {
        errors->push_back(path + ": nothing to restore: no checkpoint phase runs before " + p.name +
                          "; put one before it, or give `from` (a checkpoint folder of another run)");
      }
      continue;
    }
    size_t k = 0;
    while (k < phases.size() && phases[k].name != named) ++k;
    if (k == phases.size()) {
      errors->push_back(path + ".checkpoint: no phase named \"" + named + "\"; " + expected);
    } else if (phases[k].kind->name != "checkpoint") {
      errors->push_back(path + ".checkpoint: phase \"" + named + "\" is a " + std::string(phases[k].kind->name) +
                        " phase, not a checkpoint; " + expected);
    } else if (k > i) {
      errors->push_back(path + ".checkpoint: phase \"" + named + "\" runs after " + p.name +
                        ", so it has written nothing yet; " + expected);
    } else if (p.group >= 0 && phases[k].group == p.group) {
      errors->push_back(path + ".checkpoint: phase \"" + named + "\" runs at the same time as " + p.name +
                        " (the same concurrent group), so its checkpoint is not there to read; " + expected);
    }
  }
}

}  // namespace iofab
