#include "reports/repeat_console.h"

#include <cstdio>

#include "reports/console_report.h"
#include "reports/repeat_stats.h"
#include "reports/report_reader.h"

namespace iofab {

using nlohmann::json;

void write_repeat_summary(const Report& r, std::ostream& out) {
  const json rep = r.run.is_object() ? r.run.value("repeat", json()) : json();
  if (!rep.is_object()) return;
  out << "\nrepeat: " << rep.value("completed", 0) << " of " << rep.value("count", 0) << " runs"
      << (rep.contains("warmup") && rep["warmup"].is_object() ? " after a warm-up run" : "")
      << "; figures and checks above are means\n";
  for (const auto& p : r.phases) {
    const json& headline =
        p.details.is_object() && p.details.contains("headline") ? p.details["headline"] : json();
    if (!headline.is_array()) continue;
    for (const auto& h : headline) {
      if (!h.is_string()) continue;
      auto s = repeat_stats_of(p, h.get<std::string>());
      // Sizes and counts the suite fixes do not scatter; only measured figures are worth a line.
      if (!s || s->n < 2 || metric_better(p, h.get<std::string>()) == "neither") continue;
      const std::string unit = metric_unit(p, h.get<std::string>());
      char cv[32];
      std::snprintf(cv, sizeof cv, "%.1f%%", s->cv * 100);
      out << "    " << p.name << " " << h.get<std::string>() << ": " << format_metric_value(s->mean, unit)
          << " +/- " << format_metric_value(s->stdev, unit) << " (cv " << cv << ", min "
          << format_metric_value(s->min, unit) << ", max " << format_metric_value(s->max, unit) << ")\n";
    }
  }
  // An mlperf-* suite: MLPerf's run rules, one line each (driver/runner/mlperf_run_rules.h).
  const json rules = rep.value("mlperf_rules", json());
  if (!rules.is_array() || rules.empty()) return;
  out << "  MLPerf run rules (Rules.md):\n";
  for (const auto& rule : rules) {
    char measured[32];
    std::snprintf(measured, sizeof measured, "%.3g", rule.value("measured", 0.0));
    out << "    " << (rule.value("passed", false) ? "pass  " : "FAIL  ") << rule.value("name", std::string())
        << " (" << rule.value("section", std::string()) << "): " << rule.value("rule", std::string())
        << "  (measured " << measured << ")\n";
  }
}

}  // namespace iofab
