#include "driver/suite/phase_links.h"

#include <optional>
#include <string>
#include <string_view>

namespace iofab {

namespace {

std::string string_param(const PhaseSpec& p, std::string_view key) {
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

// Phase i's param link.param names phase `named`, which must be of link.kind, run before it and not beside
// it in its concurrent group. Returns the named phase's position when it is such a phase.
std::optional<size_t> check_named(const std::vector<PhaseSpec>& phases, size_t i, const std::string& path,
                                  const PhaseLink& link, const std::string& named,
                                  std::vector<std::string>* errors) {
  const PhaseSpec& p = phases[i];
  const std::string k_name(link.kind);
  const std::string expected = "expected the name of a " + k_name + " phase that runs before " + p.name +
                               " (earlier " + k_name + " phases: " + earlier_of(phases, i, link.kind) + ")";
  const std::string at = path + "." + std::string(link.param) + ": ";
  size_t k = 0;
  while (k < phases.size() && phases[k].name != named) ++k;
  if (k == phases.size()) {
    errors->push_back(at + "no phase named \"" + named + "\"; " + expected);
  } else if (phases[k].kind->name != link.kind) {
    errors->push_back(at + "phase \"" + named + "\" is a " + std::string(phases[k].kind->name) + " phase, not a " +
                      k_name + "; " + expected);
  } else if (k > i) {
    errors->push_back(at + "phase \"" + named + "\" runs after " + p.name + ", so it has written nothing yet; " +
                      expected);
  } else if (p.group >= 0 && phases[k].group == p.group) {
    errors->push_back(at + "phase \"" + named + "\" runs at the same time as " + p.name +
                      " (the same concurrent group), so " + std::string(link.what) +
                      " is not there to read; " + expected);
  } else {
    return k;
  }
  return std::nullopt;
}

// The param absent: the nearest earlier phase of link.kind (it ran last), or an error when the link needs
// one and there is none.
std::optional<size_t> nearest_earlier(const std::vector<PhaseSpec>& phases, size_t i, const std::string& path,
                                      const PhaseLink& link, std::vector<std::string>* errors) {
  if (link.missing.empty()) return std::nullopt;
  std::optional<size_t> source;
  for (size_t k = 0; k < i; ++k) {
    if (phases[k].kind->name == link.kind) source = k;
  }
  if (!source) {
    errors->push_back(path + ": " + std::string(link.missing) + ": no " + std::string(link.kind) +
                      " phase runs before " + phases[i].name + "; " + std::string(link.missing_hint));
  }
  return source;
}

void check_link(const std::vector<PhaseSpec>& phases, size_t i, const std::string& path,
                const PhaseLink& link, std::vector<std::string>* errors) {
  const PhaseSpec& p = phases[i];
  if (!link.unless_param.empty() && !string_param(p, link.unless_param).empty()) return;  // read at run time
  const std::string named = string_param(p, link.param);
  const std::optional<size_t> source = named.empty() ? nearest_earlier(phases, i, path, link, errors)
                                                     : check_named(phases, i, path, link, named, errors);
  if (!source || link.check_source == nullptr) return;
  const std::string problem = link.check_source(p.params, phases[*source].params, phases[*source].name);
  if (!problem.empty()) errors->push_back(path + problem);
}

}  // namespace

void check_phase_links(const std::vector<PhaseSpec>& phases, const std::vector<std::string>& paths,
                       std::vector<std::string>* errors) {
  for (size_t i = 0; i < phases.size(); ++i) {
    for (const PhaseLink& link : phases[i].kind->links) check_link(phases, i, paths[i], link, errors);
  }
}

}  // namespace iofab
