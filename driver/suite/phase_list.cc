#include "driver/suite/phase_list.h"

#include <cctype>
#include <set>

#include "driver/suite/phase_groups.h"
#include "driver/suite/phase_links.h"
#include "driver/suite/suite_checks.h"
#include "harness/phase/params.h"
#include "workloads/phase_table.h"

namespace iofab {

using nlohmann::json;

SuiteDefaults::SuiteDefaults(const json& doc, std::vector<std::string>* errors) {
  if (!doc.contains("defaults")) return;
  if (!doc["defaults"].is_object()) {
    errors->push_back("defaults: expected an object of phase parameters, got " +
                      describe_json_value(doc["defaults"]));
  } else {
    defaults_ = &doc["defaults"];
  }
}

json SuiteDefaults::applicable(const PhaseKind& kind, const std::string& path) {
  json applicable = json::object();
  if (defaults_ == nullptr) return applicable;
  const json empty = json::object();
  ParamReader probe(empty, path);
  kind.parse(probe);
  for (const auto& [k, v] : defaults_->items()) {
    if (probe.known_keys().count(k) != 0) {
      applicable[k] = v;
      used_.insert(k);
    }
  }
  return applicable;
}

void SuiteDefaults::check_unused(std::vector<std::string>* errors) const {
  if (defaults_ == nullptr) return;
  const json empty = json::object();
  for (const auto& [k, v] : defaults_->items()) {
    if (used_.count(k) != 0) continue;
    bool known = false;
    for (const auto& kind : phase_table()) {
      ParamReader probe(empty, "defaults");
      kind.parse(probe);
      known = known || probe.known_keys().count(k) != 0;
    }
    if (!known) errors->push_back("defaults." + k + ": not a parameter of any phase kind");
  }
}

namespace {

const std::set<std::string, std::less<>> kPhaseOwnKeys = {"kind", "name", "checks", "headline"};

// The phase object's row of the phase table; nullptr after an error.
const PhaseKind* phase_kind_of(const json& p, const std::string& path, std::vector<std::string>* errors) {
  if (!p.is_object()) {
    errors->push_back(path + ": expected an object with \"kind\", got " + describe_json_value(p));
    return nullptr;
  }
  std::string kinds;
  for (const auto& k : phase_table()) kinds += (kinds.empty() ? "" : ", ") + std::string(k.name);
  if (!p.contains("kind") || !p["kind"].is_string()) {
    errors->push_back(path + ".kind: expected one of: " + kinds);
    return nullptr;
  }
  const PhaseKind* kind = find_phase_kind(p["kind"].get<std::string>());
  if (kind == nullptr) {
    errors->push_back(path + ".kind: unknown phase kind " + describe_json_value(p["kind"]) +
                      "; expected one of: " + kinds);
  }
  return kind;
}

// Whether n is a phase's name: letters, digits, '_' and '-', at most kMaxPhaseNameBytes.
bool is_phase_name(const json& n) {
  if (!n.is_string() || n.get<std::string>().empty() || n.get<std::string>().size() > kMaxPhaseNameBytes) {
    return false;
  }
  for (char c : n.get<std::string>()) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return true;
}

// The phases one by one, each checked against those before it (its name unique).
class PhaseListParser {
 public:
  PhaseListParser(SuiteDefaults& defaults, Suite* out, std::vector<std::string>* errors)
      : defaults_(defaults), out_(out), errors_(*errors) {}

  void parse(const json& phases) {
    const auto parse_one = [this](const json& p, const std::string& path) { return parse_phase(p, path); };
    for (size_t i = 0; i < phases.size(); ++i) {
      const json& p = phases[i];
      const std::string path = "phases[" + std::to_string(i) + "]";
      if (p.is_object() && p.contains("concurrent")) {
        parse_group(p, path, parse_one, out_, &errors_);
        continue;
      }
      parse_phase(p, path);
    }
    // Only between valid phases: a checkpoint phase with a typo in it must not also show as missing.
    if (errors_.empty()) check_phase_links(out_->phases, paths_, &errors_);
  }

 private:
  // One phase object at path; true when it is valid (then it is the last of out_->phases).
  bool parse_phase(const json& p, const std::string& path) {
    const PhaseKind* kind = phase_kind_of(p, path, &errors_);
    if (kind == nullptr) return false;
    PhaseSpec spec;
    spec.path = path;
    spec.kind = kind;
    if (!phase_name(p, path, *kind, &spec.name)) return false;
    const json applicable = defaults_.applicable(*kind, path);
    ParamReader reader(p, path, &applicable);
    spec.phase = kind->parse(reader);
    Status st = reader.finish(kPhaseOwnKeys);
    errors_.insert(errors_.end(), reader.errors().begin(), reader.errors().end());
    if (p.contains("checks")) {
      parse_checks(p["checks"], path + ".checks", *kind, reader.resolved(), &spec.checks, &errors_);
    }
    if (p.contains("headline"))
      parse_headline(p["headline"], path + ".headline", *kind, &spec.headline, &errors_);
    if (!st.ok()) return false;
    if (!spec.phase->planned_bytes(1) || !spec.phase->retained_bytes(1)) {
      errors_.push_back(path +
                        ": the bytes this phase puts on the target exceed 2^64 even on one rank; make its "
                        "sizes or counts smaller");
      return false;
    }
    spec.params = reader.resolved();
    out_->phases.push_back(std::move(spec));
    paths_.push_back(path);
    return true;
  }

  // The phase's name (its kind's by default), unique in the suite.
  bool phase_name(const json& p, const std::string& path, const PhaseKind& kind, std::string* name) {
    *name = std::string(kind.name);
    if (p.contains("name")) {
      if (!is_phase_name(p["name"])) {
        errors_.push_back(path + ".name: expected a name of letters, digits, '_' and '-', at most " +
                          std::to_string(kMaxPhaseNameBytes) +
                          " of them (the phase's folder is named after it), got " +
                          describe_json_value(p["name"]));
        return false;
      }
      *name = p["name"].get<std::string>();
    }
    if (!names_.insert(*name).second) {
      errors_.push_back(path + ".name: \"" + *name + "\" is used by an earlier phase; names must be unique");
      return false;
    }
    return true;
  }

  SuiteDefaults& defaults_;
  Suite* out_;
  std::vector<std::string>& errors_;
  std::set<std::string, std::less<>> names_;
  std::vector<std::string> paths_;  // each valid phase's JSON path, for messages
};

}  // namespace

void parse_phase_list(const json& phases, SuiteDefaults& defaults, Suite* out,
                      std::vector<std::string>* errors) {
  PhaseListParser(defaults, out, errors).parse(phases);
  defaults.check_unused(errors);
}

}  // namespace iofab
