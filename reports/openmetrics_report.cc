#include "reports/openmetrics_report.h"

#include <charconv>
#include <cmath>
#include <optional>

#include "harness/core/utf8.h"
#include "reports/report_reader.h"

namespace iofab {

using nlohmann::json;

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Sample {
  Labels labels;
  double value = 0;
};

// One metric family: its samples are written together, after its TYPE and HELP lines, as the format asks.
struct Family {
  std::string name;
  std::string help;
  std::vector<Sample> samples;
};

// The shortest text that reads back as the same double; the format's own words for the rest.
std::string value_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  // Whole numbers (bytes, counts, epoch seconds) as integers, not 1.5e+09: what a person greps for.
  if (std::floor(v) == v && std::fabs(v) < 1e15) {
    const auto res = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(v));
    return std::string(buf, res.ptr);
  }
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string suite_of(const Report& r) {
  if (r.run.is_object() && r.run.contains("suite") && r.run["suite"].is_object()) {
    return r.run["suite"].value("name", std::string());
  }
  return "";
}

// "node-a,node-b": the hosts the ranks ran on, in the report's order.
std::string hosts_of(const Report& r) {
  std::string out;
  if (!r.cluster.is_object() || !r.cluster.contains("hosts") || !r.cluster["hosts"].is_array()) return out;
  for (const auto& h : r.cluster["hosts"]) {
    if (!h.is_object() || !h.contains("hostname") || !h["hostname"].is_string()) continue;
    if (!out.empty()) out += ",";
    out += h["hostname"].get<std::string>();
  }
  return out;
}

// The labels every sample of one report carries: what ran, on what, where.
Labels run_labels(const Report& r, const std::string& system) {
  Labels l;
  if (!system.empty()) l.emplace_back("system", system);
  l.emplace_back("suite", suite_of(r));
  l.emplace_back("target_fs", r.target.is_object() ? r.target.value("fs_type", std::string()) : "");
  l.emplace_back("hosts", hosts_of(r));
  return l;
}

Labels with(Labels base, std::initializer_list<std::pair<std::string, std::string>> more) {
  for (const auto& kv : more) base.push_back(kv);
  return base;
}

// The headline metrics of a phase (details.headline), the figures the console shows first.
std::vector<std::string> headline_of(const PhaseReport& p) {
  std::vector<std::string> out;
  if (!p.details.contains("headline") || !p.details["headline"].is_array()) return out;
  for (const auto& n : p.details["headline"]) {
    if (n.is_string()) out.push_back(n.get<std::string>());
  }
  return out;
}

enum FamilyIndex {
  kPhaseMetric,
  kCheckPassed,
  kCheckValue,
  kCheckThreshold,
  kRunPassed,
  kRunStart,
  kRunDuration
};

std::vector<Family> empty_families() {
  return {
      {"iofab_phase_metric", "A phase's headline figure, in base units (the unit label)", {}},
      {"iofab_check_passed", "A check of the suite: 1 passed, 0 failed", {}},
      {"iofab_check_value", "The value a check measured, in the metric's base unit", {}},
      {"iofab_check_threshold", "The threshold a check holds its metric to", {}},
      {"iofab_run_passed", "1 when the run's verdict is passed, else 0", {}},
      {"iofab_run_start_time_seconds", "When the run started, seconds since the Unix epoch", {}},
      {"iofab_run_duration_seconds", "How long the run took", {}},
  };
}

// Seconds since the epoch of "2024-05-01T12:00:00Z" (or with fractional seconds); nullopt if not that form.
std::optional<double> epoch_seconds(const std::string& t) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0;
  double s = 0;
  if (std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf", &y, &mo, &d, &h, &mi, &s) != 6) return std::nullopt;
  // Days from the civil date (Howard Hinnant's algorithm): no timegm, no time zone involved.
  y -= mo <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const double days = era * 146097.0 + doe - 719468.0;
  return days * 86400.0 + h * 3600.0 + mi * 60.0 + s;
}

void add_report(const Report& r, const std::string& system, std::vector<Family>* f) {
  const Labels base = run_labels(r, system);
  for (const auto& p : r.phases) {
    for (const auto& m : headline_of(p)) {
      const std::optional<double> v = metric_value(p, m);
      if (!v) continue;
      (*f)[kPhaseMetric].samples.push_back(
          {with(base, {{"phase", p.name}, {"metric", m}, {"unit", metric_unit(p, m)}}), *v});
    }
    for (const auto& c : p.checks) {
      const Labels l = with(base, {{"phase", p.name}, {"check", c.name}, {"metric", c.metric}});
      (*f)[kCheckPassed].samples.push_back({l, c.passed ? 1.0 : 0.0});
      if (c.has_value) (*f)[kCheckValue].samples.push_back({l, c.value});
      (*f)[kCheckThreshold].samples.push_back({l, c.threshold});
    }
  }
  (*f)[kRunPassed].samples.push_back({base, r.verdict == "passed" ? 1.0 : 0.0});
  if (r.run.is_object() && r.run.contains("start_time") && r.run["start_time"].is_string()) {
    if (auto t = epoch_seconds(r.run["start_time"].get<std::string>())) {
      (*f)[kRunStart].samples.push_back({base, *t});
    }
  }
  if (r.run.is_object() && r.run.contains("duration_s") && r.run["duration_s"].is_number()) {
    (*f)[kRunDuration].samples.push_back({base, r.run["duration_s"].get<double>()});
  }
}

std::string render(const std::vector<Family>& families) {
  std::string out;
  for (const auto& f : families) {
    if (f.samples.empty()) continue;
    out += "# TYPE " + f.name + " gauge\n";
    out += "# HELP " + f.name + " " + f.help + "\n";
    for (const auto& s : f.samples) {
      out += f.name + "{";
      for (size_t i = 0; i < s.labels.size(); ++i) {
        if (i > 0) out += ",";
        out += s.labels[i].first + "=\"" + openmetrics_label_escape(s.labels[i].second) + "\"";
      }
      out += "} " + value_text(s.value) + "\n";
    }
  }
  return out + "# EOF\n";
}

}  // namespace

std::string openmetrics_label_escape(std::string_view value) {
  const std::string text = valid_utf8(value);
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    if (ch == '\\') {
      out += "\\\\";
    } else if (ch == '"') {
      out += "\\\"";
    } else if (ch == '\n') {
      out += "\\n";
    } else {
      out += ch;
    }
  }
  return out;
}

std::string openmetrics_for_run(const Report& report) {
  std::vector<Family> families = empty_families();
  add_report(report, "", &families);
  return render(families);
}

std::string openmetrics_for_systems(const std::vector<SystemReport>& systems) {
  std::vector<Family> families = empty_families();
  // One report: the same samples as its run wrote; several: a system label tells them apart.
  for (const auto& s : systems) add_report(s.loaded.report, systems.size() == 1 ? "" : s.label, &families);
  return render(families);
}

}  // namespace iofab
