#include "driver/suite/suite_set.h"

#include <cctype>
#include <string_view>
#include <vector>

#include "driver/suite/target_sections.h"
#include "harness/core/json_input.h"
#include "harness/core/json_text.h"
#include "harness/core/text.h"
#include "workloads/phase_table.h"

namespace iofab {

using nlohmann::json;

namespace {

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
      const json kind_name = p.value("kind", json());
      const PhaseKind* kind = kind_name.is_string() ? find_phase_kind(kind_name.get<std::string>()) : nullptr;
      if (kind == nullptr) return;
      if (kind->scale == ScaleRule::kAlways ||
          (kind->scale == ScaleRule::kWhenScaleGiven && p.contains("scale"))) {
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
      !is_target_section(std::string_view(path).substr(0, dot))) {
    return false;
  }
  const std::string section = path.substr(0, dot);
  if (!doc->contains(section) || !(*doc)[section].is_object()) (*doc)[section] = json::object();
  (*doc)[section][path.substr(dot + 1)] = value;
  return true;
}

Status set_default(json* doc, const std::string& path, const json& value) {
  if (!doc->contains("defaults")) (*doc)["defaults"] = json::object();
  if (!(*doc)["defaults"].is_object())
    return Status::Invalid("--set " + path + ": defaults is not an object");
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
  bool ok =
      path.size() > 7 && path[6] == '[' && close != std::string::npos && close > 7 && close + 2 < path.size();
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
  return Status::Invalid("--set " + path + ": no phase named \"" + where.phase +
                         "\"; the suite's phases: " + join(names, ", "));
}

}  // namespace

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

}  // namespace iofab
