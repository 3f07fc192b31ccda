#include "driver/suite/suite_header.h"

#include <optional>
#include <set>

#include "driver/suite/target_sections.h"
#include "harness/core/units.h"
#include "harness/phase/params.h"

namespace iofab {

using nlohmann::json;

namespace {

// The suite's own top keys; beside them, each kind of target's section (target_kinds.cc: "s3").
const std::set<std::string, std::less<>> kTopKeys = {
    "name", "description", "target", "target_scope", "defaults", "phases", "telemetry_interval"};

void check_top_keys(const json& doc, std::vector<std::string>* errors) {
  for (const auto& [k, v] : doc.items()) {
    if (kTopKeys.count(k) == 0 && !is_target_section(k)) {
      errors->push_back(k + ": unknown key; expected name, description, target, target_scope, " +
                        section_list("") + "defaults, phases, telemetry_interval");
    }
  }
}

// A string member key of doc into *out; an error when it is there but no string.
void string_key(const json& doc, const char* key, std::string* out, std::vector<std::string>* errors) {
  if (!doc.contains(key)) return;
  if (doc[key].is_string()) {
    *out = doc[key].get<std::string>();
  } else {
    errors->push_back(std::string(key) + ": expected a string, got " + describe_json_value(doc[key]));
  }
}

// Each kind of target's section, checked by its kind and kept as written for its code.
void parse_target_sections(const json& doc, Suite* out, std::vector<std::string>* errors) {
  for (const auto& kind : target_sections()) {
    if (!doc.contains(kind.name)) continue;
    const json& section = doc[std::string(kind.name)];
    kind.check(section, errors);
    out->target_settings.emplace(std::string(kind.name), section);
  }
}

// A duration like "1s" or seconds; 0 turns the sampler off.
void parse_telemetry_interval(const json& t, Suite* out, std::vector<std::string>* errors) {
  std::optional<double> v;
  if (t.is_number()) v = t.get<double>();
  if (t.is_string()) v = units::parse_duration(t.get<std::string>());
  if (!v || !(*v == 0 || (*v >= 0.05 && *v <= 3600))) {
    errors->push_back("telemetry_interval: expected 0 (off) or a duration from 50ms to 1h like \"1s\", got " +
                      describe_json_value(t));
  } else {
    out->telemetry_interval_s = *v;
  }
}

}  // namespace

void parse_suite_header(const json& doc, Suite* out, std::vector<std::string>* errors) {
  check_top_keys(doc, errors);
  string_key(doc, "name", &out->name, errors);
  string_key(doc, "description", &out->description, errors);
  if (doc.contains("target")) {
    if (doc["target"].is_string() && !doc["target"].get<std::string>().empty()) {
      out->target = doc["target"].get<std::string>();
    } else {
      errors->push_back("target: expected a folder path or s3://bucket/prefix, got " +
                        describe_json_value(doc["target"]));
    }
  }
  parse_target_sections(doc, out, errors);
  if (doc.contains("target_scope")) parse_target_scope(doc["target_scope"], &out->target_scope, errors);
  if (doc.contains("telemetry_interval")) parse_telemetry_interval(doc["telemetry_interval"], out, errors);
}

}  // namespace iofab
