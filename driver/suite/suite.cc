#include "driver/suite/suite.h"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <set>

#include "harness/core/input_file.h"
#include "harness/core/json_input.h"
#include "harness/core/json_text.h"
#include "harness/core/units.h"
#include "harness/engines/engine_choice.h"
#include "harness/phase/params.h"
#include "driver/suite/embedded_suites.h"
#include "driver/suite/phase_groups.h"
#include "driver/suite/phase_links.h"
#include "driver/targets/run_target.h"
#include "workloads/phase_table.h"

namespace iofab {

using nlohmann::json;

namespace {

// The suite's own top keys; beside them, each kind of target's section (target_kinds.cc: "s3").
const std::set<std::string, std::less<>> kTopKeys = {"name",     "description", "target",
                                                     "target_scope", "defaults", "phases",
                                                     "telemetry_interval"};
const std::set<std::string, std::less<>> kPhaseOwnKeys = {"kind", "name", "checks", "headline"};
const std::set<std::string, std::less<>> kCheckKeys = {"metric", "op", "value", "name"};

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

// Every phase object of a suite's "phases", the members of concurrent groups included, in order.
template <typename Fn>
void for_each_phase_object(json& phases, Fn fn) {
  for (json& p : phases) {
    if (!p.is_object()) continue;
    if (p.contains("concurrent") && p["concurrent"].is_array()) {
      for (json& m : p["concurrent"]) {
        if (m.is_object()) fn(m);
      }
    } else {
      fn(p);
    }
  }
}

// The kinds of targets' section names, each followed by suffix and ", " ("s3, " or, as --set paths,
// "s3.KEY, "), for messages.
std::string section_list(std::string_view suffix) {
  std::string out;
  for (const auto& k : run_target_kinds()) {
    if (!k.section.empty()) out += std::string(k.section) + std::string(suffix) + ", ";
  }
  return out;
}

// A --set value: JSON when it parses as JSON (numbers, true, objects),
// otherwise the text itself as a string ("4MiB"). JSON that is too deep or
// repeats a key is refused, not taken for a string.
Status set_value(const std::string& path, const std::string& text, json* out) {
  JsonInputError kind = JsonInputError::kNone;
  json v;
  Status s = parse_json_input(text, {}, &v, &kind);
  if (kind == JsonInputError::kDepth || kind == JsonInputError::kDuplicate) {
    return Status::Invalid("--set " + path + ": " + s.message());
  }
  // "null" is an engine name; a JSON null is never a useful override.
  *out = !s.ok() || v.is_null() ? json(text) : std::move(v);
  return Status::Ok();
}

// --set checkpoint_scale=N (`run --scale N`): every checkpoint phase at 1/N of its full size, and every
// train_read phase whose suite states its dataset at full size (it gives a scale) at 1/N of its samples.
Status set_scale(json* doc, const json& value) {
  bool any = false;
  if (doc->contains("phases") && (*doc)["phases"].is_array()) {
    for_each_phase_object((*doc)["phases"], [&](json& p) {
      const json kind = p.value("kind", json());
      if (kind == "checkpoint" || (kind == "train_read" && p.contains("scale"))) {
        p["scale"] = value;
        any = true;
      }
    });
  }
  if (!any) {
    return Status::Invalid(
        "--scale: the suite has no checkpoint phase, nor a train_read phase that gives a scale, to scale");
  }
  return Status::Ok();
}

// SECTION.KEY=VALUE (s3.endpoint), or false when path names no kind of target's section.
bool set_section_key(json* doc, const std::string& path, const json& value) {
  auto dot = path.find('.');
  if (dot == std::string::npos || dot + 1 == path.size() ||
      target_kind_of_section(std::string_view(path).substr(0, dot)) == nullptr) {
    return false;
  }
  const std::string section = path.substr(0, dot);
  if (!doc->contains(section) || !(*doc)[section].is_object()) (*doc)[section] = json::object();
  (*doc)[section][path.substr(dot + 1)] = value;
  return true;
}

Status set_default(json* doc, const std::string& path, const json& value) {
  if (!doc->contains("defaults")) (*doc)["defaults"] = json::object();
  if (!(*doc)["defaults"].is_object()) return Status::Invalid("--set " + path + ": defaults is not an object");
  (*doc)["defaults"][path.substr(9)] = value;
  return Status::Ok();
}

// Where phases.NAME.KEY or phases[I].KEY points: the phase's name or index (-1 with a name) and the key.
struct PhasePath {
  std::string phase;
  long index = -1;
  std::string key;
};

Status parse_phase_path(const std::string& path, PhasePath* out) {
  const Status bad =
      Status::Invalid("--set " + path + ": expected phases.NAME.KEY=VALUE or phases[I].KEY=VALUE");
  if (path.rfind("phases.", 0) == 0) {
    std::string rest = path.substr(7);
    auto dot = rest.rfind('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == rest.size()) return bad;
    out->phase = rest.substr(0, dot);
    out->key = rest.substr(dot + 1);
    return Status::Ok();
  }
  auto close = path.find("].");
  bool ok = path.size() > 7 && path[6] == '[' && close != std::string::npos && close > 7 && close + 2 < path.size();
  for (size_t i = 7; ok && i < close; ++i) ok = std::isdigit(static_cast<unsigned char>(path[i])) != 0;
  if (!ok) return bad;
  out->index = std::stol(path.substr(7, close - 7));
  out->key = path.substr(close + 2);
  return Status::Ok();
}

Status set_phase_key(json* doc, const std::string& path, const json& value) {
  PhasePath where;
  if (Status s = parse_phase_path(path, &where); !s.ok()) return s;
  if (!doc->contains("phases") || !(*doc)["phases"].is_array()) {
    return Status::Invalid("--set " + path + ": the suite has no phases array");
  }
  json& phases = (*doc)["phases"];
  if (where.index >= 0) {
    const auto i = static_cast<size_t>(where.index);
    if (i >= phases.size() || !phases[i].is_object()) {
      return Status::Invalid("--set " + path + ": the suite has " + std::to_string(phases.size()) +
                             " phases; expected an index from 0");
    }
    phases[i][where.key] = value;
    return Status::Ok();
  }
  std::vector<std::string> names;
  bool found = false;
  for_each_phase_object(phases, [&](json& p) {
    // A name or kind of the wrong type is reported by validation, not here.
    std::string name;
    if (p.contains("name") && p["name"].is_string())
      name = p["name"].get<std::string>();
    else if (!p.contains("name") && p.contains("kind") && p["kind"].is_string())
      name = p["kind"].get<std::string>();
    if (name.empty()) return;
    names.push_back(name);
    if (name == where.phase && !found) {
      p[where.key] = value;
      found = true;
    }
  });
  if (found) return Status::Ok();
  return Status::Invalid("--set " + path + ": no phase named \"" + where.phase + "\"; the suite's phases: " +
                         join(names, ", "));
}

Status apply_set(json* doc, const std::string& set) {
  auto eq = set.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Status::Invalid("--set " + set + ": expected PATH=VALUE, e.g. phases.ingest.block_size=4MiB");
  }
  std::string path = set.substr(0, eq);
  if (!is_utf8(set)) return Status::Invalid("--set " + json_text(json(path)) + ": expected UTF-8 text");
  json value;
  if (Status vs = set_value(path, set.substr(eq + 1), &value); !vs.ok()) return vs;
  if (path == "target" || path == "name" || path == "description" || path == "telemetry_interval" ||
      path == "target_scope") {
    (*doc)[path] = value;
    return Status::Ok();
  }
  if (set_section_key(doc, path, value)) return Status::Ok();
  if (path == "checkpoint_scale") return set_scale(doc, value);
  if (path.rfind("defaults.", 0) == 0 && path.size() > 9) return set_default(doc, path, value);
  if (path.rfind("phases", 0) == 0) return set_phase_key(doc, path, value);
  return Status::Invalid("--set " + path + ": unknown path; expected target, " + section_list(".KEY") +
                         "defaults.KEY or phases.NAME.KEY");
}

// Parses a check threshold in the unit of its metric.
std::optional<double> parse_threshold(const json& v, Unit unit) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return std::nullopt;
  const std::string s = v.get<std::string>();
  switch (unit) {
    case Unit::kBytes: {
      auto b = units::parse_size(s);
      return b ? std::optional<double>(static_cast<double>(*b)) : std::nullopt;
    }
    case Unit::kBytesPerSecond:
      return units::parse_rate(s);
    case Unit::kSeconds:
      return units::parse_duration(s);
    case Unit::kFraction:
      return units::parse_fraction(s);
    case Unit::kCount:
    case Unit::kRatio:
    case Unit::kOpsPerSecond:
      return units::parse_count(s);
  }
  return std::nullopt;
}

const char* unit_example(Unit unit) {
  switch (unit) {
    case Unit::kBytes:
      return "a size like \"1GiB\"";
    case Unit::kBytesPerSecond:
      return "a rate like \"2GB/s\"";
    case Unit::kSeconds:
      return "a duration like \"180s\"";
    case Unit::kFraction:
      return "a fraction like 0.9 or \"90%\"";
    case Unit::kCount:
      return "a number like 1000";
    case Unit::kRatio:
      return "a number like 1.5";
    case Unit::kOpsPerSecond:
      return "operations a second like 1e5";
  }
  return "a number";
}

// `headline`: the metrics the console shows for the phase, instead of the first ones of its table.
void parse_headline(const json& arr, const std::string& path, const PhaseKind& kind,
                    std::vector<std::string>* out, std::vector<std::string>* errors) {
  if (!arr.is_array() || arr.empty() || arr.size() > 8) {
    errors->push_back(path + ": expected an array of 1 to 8 metric names like [\"mlperf_au\"], got " +
                      describe_json_value(arr));
    return;
  }
  for (size_t i = 0; i < arr.size(); ++i) {
    const std::string name = arr[i].is_string() ? arr[i].get<std::string>() : "";
    const MetricInfo* info = name.empty() ? nullptr : find_metric(kind, name);
    if (info == nullptr || name.find('*') != std::string::npos) {
      errors->push_back(path + "[" + std::to_string(i) + "]: expected a metric name of phase kind " +
                        std::string(kind.name) + ", got " + describe_json_value(arr[i]));
      continue;
    }
    out->push_back(name);
  }
}

// A check on a figure the phase's engine does not measure (corrupt_shards with engine null, which reads
// no bytes) could only pass on a 0 nobody measured: refused, naming the check and why.
bool measured_with_engine(const PhaseKind& kind, const std::string& metric, const json& params,
                          const std::string& at, std::vector<std::string>* errors) {
  const auto engine = params.find("engine");
  if (engine == params.end() || !engine->is_string()) return true;
  const std::string name = engine->get<std::string>();
  if (engine_moves_data(name) || !is_verify_metric(kind, metric)) return true;
  errors->push_back(at + ": " + metric + " is not measured with engine " + name + ": it moves no bytes, so " +
                    std::string(kind.name) +
                    " verifies nothing and the check could pass on a figure never measured; check a figure "
                    "it measures, or use an engine that reads the data (engine \"auto\")");
  return false;
}

void parse_checks(const json& arr, const std::string& path, const PhaseKind& kind, const json& params,
                  std::vector<CheckSpec>* out, std::vector<std::string>* errors) {
  if (!arr.is_array()) {
    errors->push_back(path +
                      ": expected an array of checks like [{\"metric\": \"write_bytes_per_s\", \"op\": "
                      "\">=\", \"value\": \"1GB/s\"}], got " +
                      describe_json_value(arr));
    return;
  }
  for (size_t i = 0; i < arr.size(); ++i) {
    const json& c = arr[i];
    std::string cp = path + "[" + std::to_string(i) + "]";
    if (!c.is_object()) {
      errors->push_back(cp + ": expected an object {metric, op, value}, got " + describe_json_value(c));
      continue;
    }
    for (const auto& [k, v] : c.items()) {
      if (kCheckKeys.count(k) == 0)
        errors->push_back(cp + "." + k + ": unknown key; expected metric, op, value, name");
    }
    CheckSpec spec;
    spec.path = cp;
    if (!c.contains("metric") || !c["metric"].is_string()) {
      errors->push_back(cp + ".metric: expected a metric name of phase kind " + std::string(kind.name));
      continue;
    }
    spec.metric = c["metric"].get<std::string>();
    const MetricInfo* info = find_metric(kind, spec.metric);
    if (info == nullptr) {
      std::string names;
      for (const auto& m : kind.metrics()) names += (names.empty() ? "" : ", ") + m.name;
      errors->push_back(cp + ".metric: unknown metric \"" + spec.metric + "\" for phase kind " +
                        std::string(kind.name) + "; expected one of: " + names);
      continue;
    }
    if (!measured_with_engine(kind, spec.metric, params, cp + ".metric", errors)) continue;
    std::string op = c.contains("op") && c["op"].is_string() ? c["op"].get<std::string>() : "";
    if (!c.contains("op")) op = info->better == Better::kLower ? "<=" : ">=";
    if (op == ">=")
      spec.op = CheckOp::kGe;
    else if (op == "<=")
      spec.op = CheckOp::kLe;
    else if (op == ">")
      spec.op = CheckOp::kGt;
    else if (op == "<")
      spec.op = CheckOp::kLt;
    else if (op == "==")
      spec.op = CheckOp::kEq;
    else {
      errors->push_back(cp + ".op: expected one of \">=\" \"<=\" \">\" \"<\" \"==\", got " +
                        describe_json_value(c.value("op", json())));
      continue;
    }
    if (!c.contains("value")) {
      errors->push_back(cp + ".value: expected " + std::string(unit_example(info->unit)));
      continue;
    }
    auto th = parse_threshold(c["value"], info->unit);
    if (!th || !std::isfinite(*th)) {
      errors->push_back(cp + ".value: expected " + std::string(unit_example(info->unit)) + ", got " +
                        describe_json_value(c["value"]));
      continue;
    }
    spec.threshold = *th;
    spec.threshold_text = c["value"].is_string() ? c["value"].get<std::string>() : c["value"].dump();
    if (c.contains("name")) {
      if (!c["name"].is_string()) {
        errors->push_back(cp + ".name: expected a string");
        continue;
      }
      spec.name = c["name"].get<std::string>();
    } else {
      spec.name = spec.metric + " " + op + " " + spec.threshold_text;
    }
    out->push_back(std::move(spec));
  }
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  std::string hex;
  char b[3];
  for (unsigned i = 0; i < len; ++i) {
    std::snprintf(b, sizeof b, "%02x", md[i]);
    hex += b;
  }
  return hex;
}

namespace {

// One suite document into a Suite, every error kept (each names its JSON path), in named steps.
class SuiteParser {
 public:
  SuiteParser(const json& doc, Suite* out) : doc_(doc), out_(out) {}

  Status parse() {
    check_top_keys();
    parse_header();
    parse_defaults();
    if (!doc_.contains("phases") || !doc_["phases"].is_array() || doc_["phases"].empty()) {
      errors_.push_back("phases: expected a non-empty array of phases like [{\"kind\": \"ingest\"}]");
    } else {
      parse_phases();
    }
    if (!errors_.empty()) return Status::Invalid(join(errors_, "\n"));
    return Status::Ok();
  }

 private:
  void check_top_keys() {
    for (const auto& [k, v] : doc_.items()) {
      if (kTopKeys.count(k) == 0 && target_kind_of_section(k) == nullptr) {
        errors_.push_back(k + ": unknown key; expected name, description, target, target_scope, " +
                          section_list("") + "defaults, phases, telemetry_interval");
      }
    }
  }

  // name, description, target, target_scope, the target kinds' sections and telemetry_interval.
  void parse_header() {
    if (doc_.contains("name")) {
      if (doc_["name"].is_string())
        out_->name = doc_["name"].get<std::string>();
      else
        errors_.push_back("name: expected a string, got " + describe_json_value(doc_["name"]));
    }
    if (doc_.contains("description")) {
      if (doc_["description"].is_string())
        out_->description = doc_["description"].get<std::string>();
      else
        errors_.push_back("description: expected a string, got " + describe_json_value(doc_["description"]));
    }
    if (doc_.contains("target")) {
      if (doc_["target"].is_string() && !doc_["target"].get<std::string>().empty()) {
        out_->target = doc_["target"].get<std::string>();
      } else {
        errors_.push_back("target: expected a folder path or s3://bucket/prefix, got " +
                          describe_json_value(doc_["target"]));
      }
    }
    parse_target_sections();
    if (doc_.contains("target_scope"))
      parse_target_scope(doc_["target_scope"], &out_->target_scope, &errors_);
    if (doc_.contains("telemetry_interval")) parse_telemetry_interval(doc_["telemetry_interval"]);
  }

  // Each kind of target's section, checked by its kind and kept as written for its code.
  void parse_target_sections() {
    for (const auto& kind : run_target_kinds()) {
      if (kind.section.empty() || !doc_.contains(kind.section)) continue;
      const json& section = doc_[std::string(kind.section)];
      kind.check_section(section, &errors_);
      out_->target_settings.emplace(std::string(kind.section), section);
    }
  }

  // A duration like "1s" or seconds; 0 turns the sampler off.
  void parse_telemetry_interval(const json& t) {
    std::optional<double> v;
    if (t.is_number()) v = t.get<double>();
    if (t.is_string()) v = units::parse_duration(t.get<std::string>());
    if (!v || !(*v == 0 || (*v >= 0.05 && *v <= 3600))) {
      errors_.push_back(
          "telemetry_interval: expected 0 (off) or a duration from 50ms to 1h like \"1s\", got " +
          describe_json_value(t));
    } else {
      out_->telemetry_interval_s = *v;
    }
  }

  void parse_defaults() {
    if (!doc_.contains("defaults")) return;
    if (!doc_["defaults"].is_object()) {
      errors_.push_back("defaults: expected an object of phase parameters, got " +
                        describe_json_value(doc_["defaults"]));
    } else {
      defaults_ = &doc_["defaults"];
    }
  }

  void parse_phases() {
    const auto parse_one = [this](const json& p, const std::string& path) { return parse_phase(p, path); };
    for (size_t i = 0; i < doc_["phases"].size(); ++i) {
      const json& p = doc_["phases"][i];
      const std::string path = "phases[" + std::to_string(i) + "]";
      if (p.is_object() && p.contains("concurrent")) {
        parse_group(p, path, parse_one, out_, &errors_);
        continue;
      }
      parse_phase(p, path);
    }
    // Only between valid phases: a checkpoint phase with a typo in it must not also show as missing.
    if (errors_.empty()) check_phase_links(out_->phases, paths_, &errors_);
    check_unused_defaults();
  }

  // One phase object at path; true when it is valid (then it is the last of out_->phases).
  bool parse_phase(const json& p, const std::string& path) {
    const PhaseKind* kind = phase_kind_of(p, path);
    if (kind == nullptr) return false;
    PhaseSpec spec;
    spec.path = path;
    spec.kind = kind;
    if (!phase_name(p, path, *kind, &spec.name)) return false;
    const json applicable = applicable_defaults(*kind, path);
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

  const PhaseKind* phase_kind_of(const json& p, const std::string& path) {
    if (!p.is_object()) {
      errors_.push_back(path + ": expected an object with \"kind\", got " + describe_json_value(p));
      return nullptr;
    }
    std::string kinds;
    for (const auto& k : phase_table()) kinds += (kinds.empty() ? "" : ", ") + std::string(k.name);
    if (!p.contains("kind") || !p["kind"].is_string()) {
      errors_.push_back(path + ".kind: expected one of: " + kinds);
      return nullptr;
    }
    const PhaseKind* kind = find_phase_kind(p["kind"].get<std::string>());
    if (kind == nullptr) {
      errors_.push_back(path + ".kind: unknown phase kind " + describe_json_value(p["kind"]) +
                        "; expected one of: " + kinds);
    }
    return kind;
  }

  // The phase's name (its kind's by default): letters, digits, '_' and '-', unique in the suite.
  bool phase_name(const json& p, const std::string& path, const PhaseKind& kind, std::string* name) {
    *name = std::string(kind.name);
    if (p.contains("name")) {
      const json& n = p["name"];
      bool ok =
          n.is_string() && !n.get<std::string>().empty() && n.get<std::string>().size() <= kMaxPhaseNameBytes;
      if (ok) {
        for (char c : n.get<std::string>()) {
          ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
        }
      }
      if (!ok) {
        errors_.push_back(path + ".name: expected a name of letters, digits, '_' and '-', at most " +
                          std::to_string(kMaxPhaseNameBytes) +
                          " of them (the phase's folder is named after it), got " + describe_json_value(n));
        return false;
      }
      *name = n.get<std::string>();
    }
    if (!names_.insert(*name).second) {
      errors_.push_back(path + ".name: \"" + *name + "\" is used by an earlier phase; names must be unique");
      return false;
    }
    return true;
  }

  // Only the defaults this kind knows apply to it.
  json applicable_defaults(const PhaseKind& kind, const std::string& path) {
    json applicable = json::object();
    if (defaults_ == nullptr) return applicable;
    const json empty = json::object();
    ParamReader probe(empty, path);
    kind.parse(probe);
    for (const auto& [k, v] : defaults_->items()) {
      if (probe.known_keys().count(k) != 0) {
        applicable[k] = v;
        defaults_used_.insert(k);
      }
    }
    return applicable;
  }

  // A default no phase of the suite took: known to some kind not in this suite is fine; known to none is
  // a typo.
  void check_unused_defaults() {
    if (defaults_ == nullptr) return;
    const json empty = json::object();
    for (const auto& [k, v] : defaults_->items()) {
      if (defaults_used_.count(k) != 0) continue;
      bool known = false;
      for (const auto& kind : phase_table()) {
        ParamReader probe(empty, "defaults");
        kind.parse(probe);
        known = known || probe.known_keys().count(k) != 0;
      }
      if (!known) errors_.push_back("defaults." + k + ": not a parameter of any phase kind");
    }
  }

  const json& doc_;
  Suite* out_;
  std::vector<std::string> errors_;
  const json* defaults_ = nullptr;
  std::set<std::string, std::less<>> names_;
  std::set<std::string, std::less<>> defaults_used_;
  std::vector<std::string> paths_;  // each valid phase's JSON path, for messages
};

}  // namespace

Status parse_suite(std::string_view text, std::string_view source, const std::vector<std::string>& sets,
                   Suite* out) {
  out->source = source;
  out->sha256 = sha256_hex(text);
  json doc;
  JsonInputOptions options;
  options.allow_comments = true;
  if (Status s = parse_json_input(text, options, &doc); !s.ok()) {
    return Status::Invalid(std::string(source) + ": " + s.message());
  }
  if (!doc.is_object()) {
    return Status::Invalid(std::string(source) + ": expected a JSON object with \"phases\", got " +
                           describe_json_value(doc));
  }
  for (const auto& s : sets) {
    Status st = apply_set(&doc, s);
    if (!st.ok()) return st;
  }
  out->document = doc;
  return SuiteParser(out->document, out).parse();
}

bool has_concurrent_groups(const Suite& suite) { return !suite.groups.empty(); }

Status load_suite(const std::string& path_or_name, const std::vector<std::string>& sets, Suite* out) {
  std::string name = path_or_name;
  if (name.rfind("builtin:", 0) == 0) name = name.substr(8);
  const bool builtin_only = path_or_name.rfind("builtin:", 0) == 0;
  const bool is_builtin_name = std::any_of(embedded_suites().begin(), embedded_suites().end(),
                                           [&](const auto& s) { return s.name == name; });
  if (!builtin_only) {
    std::string text;
    Status rs = read_input_file(path_or_name, kMaxSuiteFileBytes, &text);
    if (rs.ok()) return parse_suite(text, path_or_name, sets, out);
    // A missing file may be a built-in suite's name; so may a folder of that name in the current folder.
    struct stat st {};
    const bool missing = stat(path_or_name.c_str(), &st) != 0 && errno == ENOENT;
    if (!missing && !(is_builtin_name && S_ISDIR(st.st_mode))) {
      return Status::Invalid("suite " + rs.message());
    }
  }
  for (const auto& s : embedded_suites()) {
    if (s.name == name) return parse_suite(s.text, "builtin:" + name, sets, out);
  }
  std::string known;
  for (const auto& s : embedded_suites()) known += (known.empty() ? "" : ", ") + std::string(s.name);
  return Status::Invalid("suite " + path_or_name +
                         ": no such file, and not a built-in suite (built-in: " + known + ")");
}

}  // namespace iofab
