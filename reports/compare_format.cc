#include "reports/compare_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "reports/console_report.h"
#include "reports/escape.h"

namespace iofab {

using nlohmann::json;

namespace {

std::string value_text(const std::optional<double>& v, size_t runs, double stdev, const std::string& unit) {
  if (!v) return "-";
  std::string s = format_metric_value(*v, unit);
  if (runs > 1) s += " +/- " + format_metric_value(stdev, unit);
  return s;
}

std::string change_text(const MetricComparison& m) {
  if (!m.baseline || !m.current) return "";
  if (!std::isfinite(m.change)) return m.change > 0 ? "+inf%" : "-inf%";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", m.change * 100);
  return buf;
}

std::string summary_line(const Comparison& c) {
  std::ostringstream s;
  s << c.count(MetricVerdict::kRegressed) << " regressed, " << c.count(MetricVerdict::kMissing)
    << " missing, " << c.count(MetricVerdict::kWithinNoise) << " within noise, "
    << c.count(MetricVerdict::kImproved) << " improved, " << c.count(MetricVerdict::kUnchanged)
    << " unchanged, " << c.count(MetricVerdict::kNeutral) << " info, " << c.count(MetricVerdict::kNew)
    << " new";
  if (c.count(MetricVerdict::kUnusable) > 0) s << ", " << c.count(MetricVerdict::kUnusable) << " unusable";
  if (!c.unusable_phases.empty()) {
    s << "; " << c.unusable_phases.size() << " phase" << (c.unusable_phases.size() == 1 ? "" : "s")
      << " did not run to a verdict";
  }
  return s.str();
}

std::string tolerance_text(double t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", t * 100);
  return buf;
}

bool shows_reason(MetricVerdict v) {
  return v == MetricVerdict::kRegressed || v == MetricVerdict::kWithinNoise || v == MetricVerdict::kMissing ||
         v == MetricVerdict::kNew || v == MetricVerdict::kUnusable;
}

}  // namespace

void write_comparison_text(const Comparison& c, std::ostream& out) {
  out << "baseline: " << c.baseline_source << "\ncurrent:  " << c.current_source << "\ntolerance "
      << tolerance_text(c.tolerance) << "; with repeated runs, a change inside 2 x sqrt(sb^2/nb + sc^2/nc) "
      << "is noise, not a regression\n\n";
  const std::vector<std::string> head = {"phase", "metric", "baseline", "current", "change", "verdict"};
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : c.metrics) {
    rows.push_back({m.phase, m.metric, value_text(m.baseline, m.baseline_runs, m.baseline_stdev, m.unit),
                    value_text(m.current, m.current_runs, m.current_stdev, m.unit), change_text(m),
                    metric_verdict_text(m.verdict)});
  }
  std::vector<size_t> w(head.size());
  for (size_t i = 0; i < head.size(); ++i) w[i] = head[i].size();
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  }
  auto line = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < r.size(); ++i) {
      out << r[i];
      if (i + 1 < r.size()) out << std::string(w[i] - r[i].size() + 2, ' ');
    }
    out << "\n";
  };
  line(head);
  for (size_t k = 0; k < rows.size(); ++k) {
    line(rows[k]);
    if (shows_reason(c.metrics[k].verdict)) out << "    " << c.metrics[k].reason << "\n";
  }
  for (const auto& p : c.phases_only_in_baseline) out << "\nphase only in the baseline: " << p;
  for (const auto& p : c.phases_only_in_current) out << "\nphase only in the current report: " << p;
  if (!c.phases_only_in_baseline.empty() || !c.phases_only_in_current.empty()) out << "\n";
  for (const auto& u : c.unusable_phases) out << "\nnot comparable (fails the compare): " << u;
  for (const auto& n : c.notes) out << "\nnote: " << n;
  out << "\n\ncompare: " << summary_line(c) << ": " << (c.failed() ? "FAILED" : "passed") << "\n";
}

json comparison_to_json(const Comparison& c) {
  json metrics = json::array();
  for (const auto& m : c.metrics) {
    metrics.push_back({{"phase", m.phase},
                       {"metric", m.metric},
                       {"unit", m.unit},
                       {"better", m.better},
                       {"baseline", m.baseline ? json(*m.baseline) : json(nullptr)},
                       {"current", m.current ? json(*m.current) : json(nullptr)},
                       {"baseline_runs", m.baseline_runs},
                       {"current_runs", m.current_runs},
                       {"baseline_stdev", m.baseline_stdev},
                       {"current_stdev", m.current_stdev},
                       {"change", std::isfinite(m.change) ? json(m.change) : json(nullptr)},
                       {"tolerance_abs", m.tolerance_abs},
                       {"noise", m.noise},
                       {"verdict", metric_verdict_text(m.verdict)},
                       {"fails", verdict_fails(m.verdict)},
                       {"reason", m.reason}});
  }
  json counts = json::object();
  for (MetricVerdict v :
       {MetricVerdict::kRegressed, MetricVerdict::kMissing, MetricVerdict::kWithinNoise,
        MetricVerdict::kImproved, MetricVerdict::kUnchanged, MetricVerdict::kNeutral, MetricVerdict::kNew,
        MetricVerdict::kUnusable}) {
    counts[metric_verdict_text(v)] = c.count(v);
  }
  return {{"baseline", c.baseline_source},
          {"current", c.current_source},
          {"tolerance", c.tolerance},
          {"noise_rule",
           "regressed when the bad-way change exceeds max(tolerance x |baseline|, "
           "2 x sqrt(sb^2/nb + sc^2/nc))"},
          {"verdict", c.failed() ? "failed" : "passed"},
          {"counts", counts},
          {"metrics", metrics},
          {"phases_only_in_baseline", c.phases_only_in_baseline},
          {"phases_only_in_current", c.phases_only_in_current},
          {"unusable_phases", c.unusable_phases},
          {"notes", c.notes}};
}

std::string comparison_to_markdown(const Comparison& c) {
  std::ostringstream o;
  o << "## iofab compare: " << (c.failed() ? "FAILED" : "passed") << "\n\n";
  o << "Baseline " << markdown_escape(c.baseline_source) << ", current " << markdown_escape(c.current_source)
    << ", tolerance " << tolerance_text(c.tolerance) << ". " << summary_line(c) << ".\n\n";
  o << "| phase | metric | baseline | current | change | verdict | why |\n|---|---|---:|---:|---:|---|---|\n";
  for (const auto& m : c.metrics) {
    const std::string verdict = metric_verdict_text(m.verdict);
    o << "| " << markdown_escape(m.phase) << " | " << markdown_escape(m.metric) << " | "
      << markdown_escape(value_text(m.baseline, m.baseline_runs, m.baseline_stdev, m.unit)) << " | "
      << markdown_escape(value_text(m.current, m.current_runs, m.current_stdev, m.unit)) << " | "
      << markdown_escape(change_text(m)) << " | "
      << (verdict_fails(m.verdict) ? "**" + markdown_escape(verdict) + "**" : markdown_escape(verdict))
      << " | " << (shows_reason(m.verdict) ? markdown_escape(m.reason) : "") << " |\n";
  }
  if (!c.phases_only_in_baseline.empty() || !c.phases_only_in_current.empty() || !c.notes.empty() ||
      !c.unusable_phases.empty())
    o << "\n";
  for (const auto& u : c.unusable_phases) o << "- **not comparable**: " << markdown_escape(u) << "\n";
  for (const auto& p : c.phases_only_in_baseline)
    o << "- phase only in the baseline: " << markdown_escape(p) << "\n";
  for (const auto& p : c.phases_only_in_current)
    o << "- phase only in the current report: " << markdown_escape(p) << "\n";
  for (const auto& n : c.notes) o << "- note: " << markdown_escape(n) << "\n";
  return o.str();
}

}  // namespace iofab
