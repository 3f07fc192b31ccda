#include "driver/suite/phase_groups.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

#include "harness/phase/params.h"
#include "driver/suite/phase_links.h"
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

// A dataset_dir as one folder, however it is written ("/d/x/", "/d/./x", a link to it).
std::filesystem::path folder_identity(const std::string& dir) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(dir, ec);
  if (ec) p = std::filesystem::path(dir).lexically_normal();
  return p.has_filename() ? p : p.parent_path();
}

bool same_or_inside(const std::filesystem::path& a, const std::filesystem::path& b) {
  auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  return ia == a.end() || ib == b.end();
}

// What members running at once cannot share, refused here rather than after the solo runs: the solo
// run's folder (NAME.solo) within a file name's 255 bytes, and a dataset_dir (one run holds its lock).
void check_members_apart(const Suite& suite, const PhaseGroup& g, const std::vector<std::string>& paths,
                         std::vector<std::string>* errors) {
  std::vector<std::pair<std::filesystem::path, size_t>> dirs;  // a dataset_dir, and the member giving it
  for (size_t k = g.first; k < suite.phases.size(); ++k) {
    const PhaseSpec& p = suite.phases[k];
    const std::string& at = paths[k - g.first];
    if (g.solo && p.name.size() + kSoloSuffix.size() > kMaxPhaseNameBytes) {
      errors->push_back(at + ".name: " + std::to_string(p.name.size()) +
                        " bytes; a phase of a group with solo runs has at most " +
                        std::to_string(kMaxPhaseNameBytes - kSoloSuffix.size()) +
                        " (its solo run's folder is the name and \".solo\", a file name of at most " +
                        std::to_string(kMaxPhaseNameBytes) +
                        " bytes): shorten it, or set the group's solo: false");
    }
    const auto it = p.params.find("dataset_dir");
    if (it == p.params.end() || !it->is_string() || it->get<std::string>().empty()) continue;
    const std::filesystem::path dir = folder_identity(it->get<std::string>());
    for (const auto& [other, j] : dirs) {
      if (!same_or_inside(dir, other)) continue;
      errors->push_back(at + ".dataset_dir: \"" + it->get<std::string>() + "\" is " +
                        (dir == other ? "the dataset_dir" : "inside or around the dataset_dir") + " of " +
                        suite.phases[j].name +
                        ", which runs at the same time (one phase holds a dataset folder's lock while it "
                        "reads): expected a folder of its own");
      break;
    }
    dirs.emplace_back(dir, k);
  }
}

// The group's members into out->phases, each marked with the group; their JSON paths into *paths. False
// when one is invalid (or a nested group).
bool parse_members(const json& members, const std::string& path, const ParsePhaseFn& parse_phase, int index,
                   Suite* out, std::vector<std::string>* paths, std::vector<std::string>* errors) {
  bool all_valid = true;
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
    paths->push_back(at);
  }
  return all_valid;
}

void parse_solo(const json& entry, const std::string& path, PhaseGroup* g, std::vector<std::string>* errors) {
  if (!entry.contains("solo")) return;
  if (entry["solo"].is_boolean()) {
    g->solo = entry["solo"].get<bool>();
  } else {
    errors->push_back(path +
                      ".solo: expected true (each phase also runs alone first, for the _solo figures) "
                      "or false, got " +
                      describe_json_value(entry["solo"]));
  }
}

// clock: the name of a member; every other member must be of a kind that follows_clock. all_valid: a
// member that failed to parse may be the one named, and its own error says what is wrong.
void parse_clock(const json& c, const std::string& path, const Suite& suite,
                 const std::vector<std::string>& paths, bool all_valid, PhaseGroup* g,
                 std::vector<std::string>* errors) {
  for (size_t k = g->first; c.is_string() && k < suite.phases.size(); ++k) {
    if (suite.phases[k].name == c.get<std::string>()) g->clock = static_cast<int>(k);
  }
  if (g->clock < 0) {
    if (all_valid) {
      errors->push_back(path + ".clock: expected the name of one of the group's phases (" + g->label +
                        "), got " + describe_json_value(c));
    }
    return;
  }
  for (size_t k = g->first; k < suite.phases.size(); ++k) {
    const PhaseSpec& p = suite.phases[k];
    if (static_cast<int>(k) == g->clock || p.kind->follows_clock) continue;
    const std::string kind(p.kind->name);
    const bool vowel = std::string_view("aeiou").find(kind.front()) != std::string_view::npos;
    errors->push_back(paths[k - g->first] + (vowel ? ": an " : ": a ") + kind +
                      " phase runs to its own end and cannot follow the group's clock (" +
                      suite.phases[static_cast<size_t>(g->clock)].name +
                      "); kinds that can: " + kinds_that_follow() + "; make it the clock, or drop clock");
  }
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
  std::vector<std::string> paths;
  const bool all_valid =
      parse_members(members, path, parse_phase, static_cast<int>(out->groups.size()), out, &paths, errors);
  g.count = out->phases.size() - g.first;
  for (size_t k = g.first; k < out->phases.size(); ++k) {
    g.label += (g.label.empty() ? "" : " + ") + out->phases[k].name;
  }
  parse_solo(entry, path, &g, errors);
  check_members_apart(*out, g, paths, errors);
  if (entry.contains("clock")) parse_clock(entry["clock"], path, *out, paths, all_valid, &g, errors);
  if (all_valid) out->groups.push_back(std::move(g));
}

}  // namespace iofab
