#include "reports/json_report.h"

#include <cmath>

#include "harness/core/json_text.h"

namespace iofab {

using nlohmann::json;

namespace {

// Raw integers where a value is whole (bytes, counts, ns), doubles otherwise.
json number(double v) {
  if (!std::isfinite(v)) return nullptr;
  if (std::floor(v) == v && std::fabs(v) < 9.0e15) return static_cast<int64_t>(v);
  return v;
}

// No object anywhere inside: a number, a string, or an array of those (a series, histogram buckets).
bool holds_no_object(const json& j) {
  if (j.is_object()) return false;
  if (!j.is_array()) return true;
  for (const auto& e : j) {
    if (!holds_no_object(e)) return false;
  }
  return true;
}

// An object of plain values (a per-rank row, a checks entry), or an empty one.
bool plain_object(const json& j) {
  if (!j.is_object()) return false;
  for (const auto& [k, v] : j.items()) {
    if (v.is_object() || v.is_array()) return false;
  }
  return true;
}

// Indented by 2 as json.dump(2) would, except that an array holding no object is written on one line,
// and so is an object of plain values inside an array: the per-rank rows, series and rank lists of a
// run at 16,384 ranks are one line each, not one line per number (a report a third of dump(2)'s
// size; docs/scale.md). The same JSON value either way.
void write_indented(const json& j, int depth, bool in_array, std::string* out) {
  if (holds_no_object(j) || (in_array && plain_object(j)) || j.empty()) {
    *out += json_text(j);
    return;
  }
  const std::string inner(static_cast<size_t>(depth + 1) * 2, ' ');
  const bool object = j.is_object();
  *out += object ? "{\n" : "[\n";
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!first) *out += ",\n";
    first = false;
    *out += inner;
    if (object) *out += json_text(json(it.key())) + ": ";
    write_indented(*it, depth + 1, !object, out);
  }
  *out += "\n" + std::string(static_cast<size_t>(depth) * 2, ' ') + (object ? "}" : "]");
}

}  // namespace

json report_to_json(const Report& r) {
  json phases = json::array();
  for (const auto& p : r.phases) {
    json checks = json::array();
    for (const auto& c : p.checks) {
      checks.push_back({{"name", c.name},
                        {"metric", c.metric},
                        {"op", c.op},
                        {"threshold", number(c.threshold)},
                        {"threshold_text", c.threshold_text},
                        {"value", c.has_value ? number(c.value) : json(nullptr)},
                        {"passed", c.passed}});
    }
    json metrics = json::object();
    for (const auto& [k, v] : p.metrics.items()) metrics[k] = v.is_number() ? number(v.get<double>()) : v;
    json phase = {{"name", p.name},
                  {"kind", p.kind},
                  {"status", phase_status_text(p.status)},
                  {"reason", p.reason},
                  {"seconds", p.seconds},
                  {"params", p.params},
                  {"result", {{"metrics", metrics}, {"details", p.details}}},
                  {"warnings", p.warnings},
                  {"checks", checks}};
    if (p.setup_seconds) phase["setup_seconds"] = number(*p.setup_seconds);
    if (p.verification) {
      json v = to_json(*p.verification);
      v["phase_bytes"] = number(p.verification->phase_bytes);
      if (p.verification->counted_bytes) v["counted_bytes"] = number(*p.verification->counted_bytes);
      phase["verification"] = std::move(v);
    }
    phases.push_back(std::move(phase));
  }
  // The code iofab exits with for this verdict: under a launcher that lost a rank, the launcher's own code
  // (a killed rank's signal) is what the shell sees, so the report says iofab's.
  const nlohmann::json verdict = {
      {"status", r.verdict}, {"reasons", r.verdict_reasons}, {"exit_code", exit_code_for(r)}};
  return {{"schema_version", kSchemaVersion},
          {"tool", r.tool},
          {"run", r.run},
          {"cluster", r.cluster},
          {"target", r.target},
          {"phases", phases},
          {"warnings", r.warnings},
          {"verdict", verdict}};
}

std::string render_json_report(const Report& report) {
  std::string out;
  write_indented(report_to_json(report), 0, false, &out);
  return out + "\n";
}

}  // namespace iofab
