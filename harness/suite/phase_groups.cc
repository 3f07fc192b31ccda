#include "harness/suite/phase_groups.h"

#include <set>

#include "harness/phase/params.h"
#include "workloads/phase_table.h"

namespace iofab {

using nlohmann::json;

namespace {

// Beyond this a group is a typo, not a training day: every phase holds its own threads and engines.
constexpr size_t kMaxGroupPhases = 8;

std::string kinds_that_follow() {
  std::string out;
  for (const auto& k : phase_table()) {
    if (k.follows_clock) out += (out.empty() ? "" : ", ") + std::string(k.name);
  }
  return out.empty() ? "none" : out;
}

}  // namespace

void parse_group(const json& entry, const std::string& path, const ParsePhaseFn& parse_phase, Suite* out,
                 std::vector<std::string>* errors) {
  static const std::set<std::string, std::less<>> kKeys = {"concurrent", "clock", "solo"};
  for (const auto& [k, v] : entry.items()) {
    if (kKeys.count(k) == 0) {
      errors->push_back(path + "." + k + ": unknown key of a concurrent group; expected concurrent, clock, solo");
    }
  }
  const json& members = entry["concurrent"];
  if (!members.is_array() || members.size() < 2 || members.size() > kMaxGroupPhases) {
    errors->push_back(path + ".concurrent: expected an array of 2 to " + std::to_string(kMaxGroupPhases) +
                      " phases that start together, got " + describe_json_value(members));
    return;
  }
  PhaseGroup g;
  g.first = out->phases.size();
  const int index = static_cast<int>(out->groups.size());
  bool all_valid = true;
  std::vector<std::string> paths;
  for (size_t j = 0; j < members.size(); ++j) {
    const std::string at = path + ".concurrent[" + std::to_string(j) + "]";
    if (members[j].is_object() && members[j].contains("concurrent")) {
      errors->push_back(at + ": concurrent groups do not nest; list its phases in this group instead");
      all_valid = false;
      continue;
    }
    if (!parse_phase(members[j], at)) {
      all_valid = false;
      continue;
    }
    out->phases.back().group = index;
    paths.push_back(at);
  }
  g.count = out->phases.size() - g.first;
  std::string names;
  for (size_t k = g.first; k < out->phases.size(); ++k) names += (names.empty() ? "" : " + ") + out->phases[k].name;
  g.label = names;

  if (entry.contains("solo")) {
    if (entry["solo"].is_boolean()) {
      g.solo = entry["solo"].get<bool>();
    } else {
      errors->push_back(path + ".solo: expected true (each phase also runs alone first, for the _solo figures) "
                               "or false, got " + describe_json_value(entry["solo"]));
    }
  }
  if (entry.contains("clock")) {
    const json& c = entry["clock"];
    for (size_t k = g.first; c.is_string() && k < out->phases.size(); ++k) {
      if (out->phases[k].name == c.get<std::string>()) g.clock = static_cast<int>(k);
    }
    if (g.clock < 0) {
      // A member that failed to parse may be the one named: its own error says what is wrong.
      if (all_valid) {
        errors->push_back(path + ".clock: expected the name of one of the group's phases (" + names + "), got " +
                          describe_json_value(c));
      }
    } else {
      for (size_t k = g.first; k < out->phases.size(); ++k) {
        const PhaseSpec& p = out->phases[k];
        if (static_cast<int>(k) == g.clock || p.kind->follows_clock) continue;
        const std::string kind(p.kind->name);
        const bool vowel = std::string_view("aeiou").find(kind.front()) != std::string_view::npos;
        errors->push_back(paths[k - g.first] + (vowel ? ": an " : ": a ") + kind +
                          " phase runs to its own end and cannot follow the group's clock (" +
                          out->phases[static_cast<size_t>(g.clock)].name + "); kinds that can: " +
                          kinds_that_follow() + "; make it the clock, or drop clock");
      }
    }
  }
  if (all_valid) out->groups.push_back(std::move(g));
}

}  // namespace iofab
