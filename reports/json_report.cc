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
    if (p.verification) {
      json v = to_json(*p.verification);
      v["phase_bytes"] = number(p.verification->phase_bytes);
      if (p.verification->counted_bytes) v["counted_bytes"] = number(*p.verification->counted_bytes);
      phase["verification"] = std::move(v);
    }
    phases.push_back(std::move(phase));
  }
  return {{"schema_version", kSchemaVersion},
          {"tool", r.tool},
          {"run", r.run},
          {"cluster", r.cluster},
          {"target", r.target},
          {"phases", phases},
          {"warnings", r.warnings},
          {"verdict", {{"status", r.verdict}, {"reasons", r.verdict_reasons}}}};
}

std::string render_json_report(const Report& report) { return json_text(report_to_json(report), 2) + "\n"; }

}  // namespace iofab
