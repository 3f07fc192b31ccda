#include "reports/history.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "reports/side_by_side.h"

namespace iofab {

using nlohmann::json;

namespace {

std::string run_field(const Report& r, const char* key) {
  return r.run.is_object() && r.run.contains(key) && r.run[key].is_string() ? r.run[key].get<std::string>()
                                                                            : "";
}

std::string suite_name(const Report& r) {
  if (r.run.is_object() && r.run.contains("suite") && r.run["suite"].is_object()) {
    return r.run["suite"].value("name", std::string());
  }
  return "";
}

HistoryRun run_of(const LoadedReport& l) {
  const Report& r = l.report;
  return {.source = l.source,
          .id = run_field(r, "id"),
          .start_time = run_field(r, "start_time"),
          .git_sha = r.tool.is_object() ? r.tool.value("git_sha", std::string()) : "",
          .verdict = r.verdict};
}

// Each phase's headline metrics across the series: phases in first-seen order, metrics as listed.
std::vector<std::pair<std::string, std::string>> headline_metrics(const std::vector<LoadedReport>& reports) {
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& l : reports) {
    for (const auto& p : l.report.phases) {
      if (!p.details.contains("headline") || !p.details["headline"].is_array()) continue;
      for (const auto& m : p.details["headline"]) {
        if (m.is_string() && seen.insert({p.name, m.get<std::string>()}).second) {
          out.emplace_back(p.name, m.get<std::string>());
        }
      }
    }
  }
  return out;
}

const MetricComparison* find_comparison(const Comparison& c, const std::string& phase,
                                        const std::string& metric) {
  for (const auto& m : c.metrics) {
    if (m.phase == phase && m.metric == metric) return &m;
  }
  return nullptr;
}

}  // namespace

size_t History::regressions() const {
  size_t n = 0;
  for (const auto& m : metrics) {
    for (const auto& p : m.points) n += p.verdict == MetricVerdict::kRegressed;
  }
  return n;
}

Status build_history(std::vector<LoadedReport> reports, const HistoryOptions& opts, History* out) {
  if (reports.empty()) return Status::Invalid("--history: expected the reports of one suite, got none");
  const std::string suite = suite_name(reports.front().report);
  for (const auto& l : reports) {
    if (suite_name(l.report) != suite) {
      return Status::Invalid("--history: expected reports of one suite; " + reports.front().source +
                             " ran \"" + suite + "\", " + l.source + " ran \"" + suite_name(l.report) + "\"");
    }
  }
  // The order they ran in; RFC 3339 times in UTC sort as text.
  std::stable_sort(reports.begin(), reports.end(), [](const LoadedReport& a, const LoadedReport& b) {
    const std::string ta = run_field(a.report, "start_time"), tb = run_field(b.report, "start_time");
    return ta != tb ? ta < tb : a.source < b.source;
  });

  History h;
  h.suite = suite;
  h.tolerance = opts.tolerance;
  h.last = opts.last;
  for (const auto& l : reports) h.runs.push_back(run_of(l));
  // Each report against the one before it, as a CI job comparing today's run with yesterday's would.
  // Forced: a suite edited along the series (another sha256) is still the same suite's history.
  std::vector<Comparison> steps(reports.size());
  std::set<std::string> notes;
  for (size_t i = 1; i < reports.size(); ++i) {
    CompareOptions co;
    co.tolerance = opts.tolerance;
    co.force = true;
    if (Status s = compare_reports(reports[i - 1], reports[i], co, &steps[i]); !s.ok()) {
      h.notes.push_back(reports[i].source + ": not compared with the report before it: " + s.message());
      continue;
    }
    for (const auto& n : steps[i].notes) {
      if (notes.insert(n).second) h.notes.push_back(reports[i].source + ": " + n);
    }
  }
  for (const auto& [phase, metric] : headline_metrics(reports)) {
    HistoryMetric hm;
    hm.phase = phase;
    hm.metric = metric;
    for (size_t i = 0; i < reports.size(); ++i) {
      HistoryPoint pt;
      if (const PhaseReport* p = find_phase(reports[i].report, phase)) {
        pt.value = metric_value(*p, metric);
        if (hm.unit.empty()) {
          hm.unit = metric_unit(*p, metric);
          hm.better = metric_better(*p, metric);
        }
      }
      if (const MetricComparison* c = i > 0 ? find_comparison(steps[i], phase, metric) : nullptr) {
        pt.verdict = c->verdict;
        pt.reason = c->reason;
        const double allowed = std::max(c->tolerance_abs, c->noise);
        // A band past a double's range (a baseline of 1e308) is no band to draw.
        if (c->baseline && std::isfinite(*c->baseline + allowed) && std::isfinite(*c->baseline - allowed)) {
          pt.band_low = *c->baseline - allowed;
          pt.band_high = *c->baseline + allowed;
        }
      }
      hm.points.push_back(std::move(pt));
    }
    h.metrics.push_back(std::move(hm));
  }
  *out = std::move(h);
  return Status::Ok();
}

}  // namespace iofab
