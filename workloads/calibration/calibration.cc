#include "workloads/calibration/calibration.h"

#include <cstdlib>

#include "harness/core/input_file.h"
#include "harness/core/json_input.h"
#include "harness/fs/path_kind.h"

namespace iofab {
namespace {

using nlohmann::json;

Status field_error(const std::string& source, std::string_view field, std::string_view expected) {
  return Status::Invalid("calibration file " + source + ": " + std::string(field) + ": expected " +
                         std::string(expected));
}

// A string field; absent reads as "" when optional.
Status read_string(const json& j, const std::string& source, const char* key, bool required,
                   std::string* out) {
  const auto it = j.find(key);
  if (it == j.end()) return required ? field_error(source, key, "a string (it is missing)") : Status::Ok();
  if (!it->is_string()) return field_error(source, key, "a string");
  *out = it->get<std::string>();
  return Status::Ok();
}

Status check_header(const json& j, const std::string& source) {
  if (!j.is_object()) return field_error(source, "(top level)", "a JSON object");
  const auto format = j.find("format");
  if (format == j.end() || !format->is_string() || *format != kCalibrationFormat) {
    return field_error(source, "format", "\"" + std::string(kCalibrationFormat) + "\"");
  }
  const auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer() || version->get<int64_t>() != kCalibrationVersion) {
    return field_error(source, "version",
                       std::to_string(kCalibrationVersion) +
                           (version == j.end() ? " (it is missing)" : ", got " + version->dump()));
  }
  const auto sections = j.find("sections");
  if (sections == j.end() || !sections->is_object()) {
    return field_error(source, "sections", "an object of named sections, e.g. {\"loader\": {...}}");
  }
  for (const auto& [name, body] : sections->items()) {
    if (!body.is_object()) return field_error(source, "sections." + name, "an object");
  }
  return Status::Ok();
}

}  // namespace

const json* Calibration::section(std::string_view name) const {
  const auto it = sections.find(std::string(name));
  return it == sections.end() ? nullptr : &*it;
}

json Calibration::to_json() const {
  return {{"format", kCalibrationFormat},
          {"version", kCalibrationVersion},
          {"created", created},
          {"host", host},
          {"python", python},
          {"torch", torch},
          {"sections", sections}};
}

json Calibration::provenance() const {
  json p = {{"source", source}, {"torch", torch.empty() ? json(nullptr) : json(torch)}};
  p["created"] = created.empty() ? json(nullptr) : json(created);
  p["host"] = host.empty() ? json(nullptr) : json(host);
  p["python"] = python.empty() ? json(nullptr) : json(python);
  return p;
}

Status parse_calibration(std::string_view text, const std::string& source, Calibration* out) {
  json j;
  if (Status s = parse_json_input(text, {}, &j); !s.ok()) {
    return Status::Invalid("calibration file " + source + ": " + s.message());
  }
  if (Status s = check_header(j, source); !s.ok()) return s;
  Calibration c;
  c.source = source;
  Status s = read_string(j, source, "created", true, &c.created);
  if (s.ok()) s = read_string(j, source, "host", false, &c.host);
  if (s.ok()) s = read_string(j, source, "python", false, &c.python);
  if (s.ok() && j.contains("torch") && j["torch"].is_null()) j.erase("torch");
  if (s.ok()) s = read_string(j, source, "torch", false, &c.torch);
  if (!s.ok()) return s;
  c.sections = j["sections"];
  *out = std::move(c);
  return Status::Ok();
}

Status load_calibration_file(const std::string& path, Calibration* out) {
  std::string text;
  if (Status s = read_input_file(path, kMaxConfigFileBytes, &text); !s.ok()) {
    return Status::Invalid("calibration file " + path + ": " + s.message());
  }
  return parse_calibration(text, path, out);
}

std::string default_calibration_path() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg != nullptr && *xdg != '\0') return std::string(xdg) + "/iofab/calibration.json";
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') return std::string(home) + "/.config/iofab/calibration.json";
  return "";
}

Status find_calibration(const std::string& param, Calibration* out) {
  if (!param.empty()) return load_calibration_file(param, out);
  const char* env = std::getenv("IOFAB_CALIBRATION");
  if (env != nullptr && *env != '\0') return load_calibration_file(env, out);
  const std::string def = default_calibration_path();
  // Something at the default path is read (and refused by name when it is no calibration file); nothing
  // there means the built-in costs.
  if (!def.empty() && path_kind(def) == PathKind::kOther) return load_calibration_file(def, out);
  *out = Calibration{};
  return Status::Ok();
}

}  // namespace iofab
