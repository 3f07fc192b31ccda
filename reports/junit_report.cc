#include "reports/junit_report.h"

#include <cmath>
#include <sstream>
#include <vector>

#include "harness/core/number_text.h"
#include "reports/console_report.h"
#include "reports/escape.h"
#include "reports/report_reader.h"

namespace iofab {

using nlohmann::json;

namespace {

std::string raw(double v) { return number_text("%.10g", v); }

std::string seconds(double s) { return number_text("%.3f", std::isfinite(s) && s > 0 ? s : 0.0); }

std::string attr(const std::string& name, const std::string& value) {
  return " " + name + "=\"" + xml_escape(value) + "\"";
}

// The ant JUnit schema's timestamp has no zone: "2024-05-01T12:00:00" (UTC here).
// JUnit's timestamp: ISO 8601 without the zone.
std::string timestamp_text(std::string t) {
  if (!t.empty() && t.back() == 'Z') t.pop_back();
  return t.empty() ? "1970-01-01T00:00:00" : t;
}

std::string timestamp_of(const Report& r) {
  return timestamp_text(r.run.is_object() ? r.run.value("start_time", "") : "");
}

std::string hostname_of(const Report& r) {
  if (r.cluster.is_object() && r.cluster.contains("hosts") && r.cluster["hosts"].is_array() &&
      !r.cluster["hosts"].empty() && r.cluster["hosts"][0].is_object()) {
    return r.cluster["hosts"][0].value("hostname", "localhost");
  }
  return "localhost";
}

std::string suite_name_of(const Report& r) {
  if (r.run.is_object() && r.run.contains("suite") && r.run["suite"].is_object()) {
    return r.run["suite"].value("name", "suite");
  }
  return "suite";
}

struct Case {
  std::string name;
  std::string classname;
  double time = 0;
  std::string outcome;  // "", "failure", "error", "skipped"
  std::string message;
  std::string type;
  std::string body;
  std::string out;  // <system-out>
};

struct Suite {
  std::string name;
  double time = 0;
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<Case> cases;
  std::string out;
};

std::string render(const std::string& name, const std::vector<Suite>& suites, const std::string& timestamp,
                   const std::string& hostname) {
  size_t tests = 0, failures = 0, errors = 0, skipped = 0;
  double time = 0;
  for (const auto& s : suites) {
    time += s.time;
    for (const auto& c : s.cases) {
      ++tests;
      failures += c.outcome == "failure";
      errors += c.outcome == "error";
      skipped += c.outcome == "skipped";
    }
  }
  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o << "<testsuites" << attr("name", name) << attr("tests", std::to_string(tests))
    << attr("failures", std::to_string(failures)) << attr("errors", std::to_string(errors))
    << attr("skipped", std::to_string(skipped)) << attr("time", seconds(time)) << ">\n";
  for (size_t i = 0; i < suites.size(); ++i) {
    const Suite& s = suites[i];
    size_t f = 0, e = 0, k = 0;
    for (const auto& c : s.cases) {
      f += c.outcome == "failure";
      e += c.outcome == "error";
      k += c.outcome == "skipped";
    }
    o << "  <testsuite" << attr("name", s.name) << attr("tests", std::to_string(s.cases.size()))
      << attr("failures", std::to_string(f)) << attr("errors", std::to_string(e))
      << attr("skipped", std::to_string(k)) << attr("time", seconds(s.time)) << attr("timestamp", timestamp)
      << attr("hostname", hostname) << attr("id", std::to_string(i)) << attr("package", name) << ">\n";
    o << "    <properties>\n";
    for (const auto& [pk, pv] : s.properties)
      o << "      <property" << attr("name", pk) << attr("value", pv) << "/>\n";
    o << "    </properties>\n";
    for (const auto& c : s.cases) {
      o << "    <testcase" << attr("name", c.name) << attr("classname", c.classname)
        << attr("time", seconds(c.time));
      if (c.outcome.empty() && c.out.empty()) {
        o << "/>\n";
        continue;
      }
      o << ">\n";
      if (c.outcome == "skipped") {
        o << "      <skipped" << attr("message", c.message) << "/>\n";
      } else if (!c.outcome.empty()) {
        o << "      <" << c.outcome << attr("message", c.message) << attr("type", c.type) << ">"
          << xml_escape(c.body) << "</" << c.outcome << ">\n";
      }
      if (!c.out.empty()) o << "      <system-out>" << xml_escape(c.out) << "</system-out>\n";
      o << "    </testcase>\n";
    }
    o << "    <system-out>" << xml_escape(s.out) << "</system-out>\n    <system-err></system-err>\n";
    o << "  </testsuite>\n";
  }
  o << "</testsuites>\n";
  return o.str();
}

}  // namespace

namespace {

// The phase itself as a test case: an error when it did not run to a verdict, skipped when it was.
Case ran_case(const PhaseReport& p, const std::string& cls) {
  Case ran;
  ran.name = "phase " + p.name + " ran";
  ran.classname = cls;
  ran.time = p.seconds;
  switch (p.status) {
    case PhaseStatus::kError:
    case PhaseStatus::kInterrupted:
      ran.outcome = "error";
      ran.type = phase_status_text(p.status);
      ran.message = std::string(phase_status_text(p.status)) + ": " + p.reason;
      ran.body = ran.message;
      break;
    case PhaseStatus::kSkipped:
      ran.outcome = "skipped";
      ran.message = "skipped: " + p.reason;
      break;
    default:
      break;
  }
  return ran;
}

// A check as a test case: the measured value and the threshold, in people's units and raw.
Case check_case(const PhaseReport& p, const CheckResult& c, const std::string& cls) {
  Case k;
  k.name = c.name;
  k.classname = cls;
  const std::string unit = metric_unit(p, c.metric);
  const std::string threshold = c.op + " " + format_metric_value(c.threshold, unit) + " (" +
                                raw(c.threshold) +
                                (c.threshold_text.empty() ? "" : ", as written: " + c.threshold_text) + ")";
  const std::string measured = c.has_value
                                   ? format_metric_value(c.value, unit) + " (" + raw(c.value) + ")"
                                   : std::string("nothing (phase ") + phase_status_text(p.status) + ")";
  k.out = c.metric + ": measured " + measured + ", threshold " + threshold;
  if (!c.passed) {
    k.outcome = "failure";
    k.type = c.has_value ? "check failed" : "no value";
    k.message = c.metric + " measured " + measured + ", threshold " + threshold;
    k.body = "phase " + p.name + " (" + p.kind + "), check \"" + c.name + "\": " + k.message;
  }
  return k;
}

}  // namespace

std::string junit_for_run(const Report& r) {
  const std::string suite = suite_name_of(r);
  std::vector<Suite> suites;
  for (const auto& p : r.phases) {
    Suite s;
    s.name = p.name;
    s.time = p.seconds;
    s.properties = {{"kind", p.kind}, {"status", phase_status_text(p.status)}};
    if (!p.reason.empty()) s.properties.emplace_back("reason", p.reason);
    // A CI dashboard shows a green check on a cached figure as readily as on a measured one: say which.
    if (p.verification) s.properties.emplace_back("verification", p.verification->level);
    const std::string cls = "iofab." + suite + "." + p.name;
    if (p.verification) s.out += p.verification->note + "\n";
    for (const auto& w : p.warnings) s.out += "warning: " + w + "\n";
    s.cases.push_back(ran_case(p, cls));
    for (const auto& c : p.checks) s.cases.push_back(check_case(p, c, cls));
    suites.push_back(std::move(s));
  }
  return render("iofab run " + suite, suites, timestamp_of(r), hostname_of(r));
}

namespace {

// One compared metric as a test case: failing when it regressed, went missing or was not comparable.
Case metric_case(const MetricComparison& m) {
  Case k;
  k.name = m.metric;
  k.classname = "iofab.compare." + m.phase;
  const auto val = [&](const std::optional<double>& v) {
    return v ? format_metric_value(*v, m.unit) + " (" + raw(*v) + ")" : std::string("none");
  };
  k.out = "baseline " + val(m.baseline) + ", current " + val(m.current) + ": " +
          metric_verdict_text(m.verdict) + ", " + m.reason;
  if (m.verdict == MetricVerdict::kRegressed) {
    const double limit = std::max(m.tolerance_abs, m.noise);
    const double worst = m.better == "higher" ? *m.baseline - limit : *m.baseline + limit;
    k.outcome = "failure";
    k.type = "regression";
    k.message = m.metric + " regressed: measured " + val(m.current) + ", threshold " +
                (m.better == "higher" ? ">= " : "<= ") + val(worst) + " (baseline " + val(m.baseline) +
                (m.better == "higher" ? " - " : " + ") + "max(tolerance, noise band))";
    k.body = m.reason;
  } else if (m.verdict == MetricVerdict::kMissing) {
    k.outcome = "failure";
    k.type = "missing";
    k.message = m.metric + " missing: measured none, threshold: a value (baseline " + val(m.baseline) +
                "); " + m.reason;
    k.body = m.reason;
  } else if (m.verdict == MetricVerdict::kUnusable) {
    k.outcome = "failure";
    k.type = "unusable";
    k.message = m.metric + " not compared: " + m.reason;
    k.body = m.reason;
  } else if (m.verdict == MetricVerdict::kNew) {
    k.outcome = "skipped";
    k.message = "nothing to compare with: " + m.reason;
  }
  return k;
}

std::string compare_xml(const Comparison& cmp, const std::string& timestamp, const std::string& hostname) {
  std::vector<Suite> suites;
  for (const auto& m : cmp.metrics) {
    if (suites.empty() || suites.back().name != m.phase) {
      Suite s;
      s.name = m.phase;
      s.properties = {{"baseline", cmp.baseline_source}, {"current", cmp.current_source}};
      s.properties.emplace_back("tolerance", number_text("%g%%", cmp.tolerance * 100));
      suites.push_back(std::move(s));
    }
    suites.back().cases.push_back(metric_case(m));
  }
  if (!cmp.unusable_phases.empty()) {
    // A phase that did not run to a verdict fails the gate even when it left no figure to list.
    Suite s;
    s.name = "compare";
    for (const auto& u : cmp.unusable_phases) {
      Case k;
      k.name = u.substr(0, u.find(':', u.find("phase ")));
      k.classname = "iofab.compare";
      k.outcome = "failure";
      k.type = "unusable";
      k.message = "not comparable: " + u;
      s.cases.push_back(std::move(k));
    }
    suites.push_back(std::move(s));
  }
  Suite notes;
  for (const auto& p : cmp.phases_only_in_baseline) notes.out += "phase only in the baseline: " + p + "\n";
  for (const auto& p : cmp.phases_only_in_current)
    notes.out += "phase only in the current report: " + p + "\n";
  for (const auto& n : cmp.notes) notes.out += "note: " + n + "\n";
  if (!notes.out.empty()) {
    if (suites.empty()) {
      notes.name = "compare";
      suites.push_back(std::move(notes));
    } else {
      suites.front().out += notes.out;
    }
  }
  return render("iofab compare", suites, timestamp, hostname);
}

}  // namespace

std::string junit_for_compare(const Comparison& cmp, const Report& current) {
  return compare_xml(cmp, timestamp_of(current), hostname_of(current));
}

std::string junit_for_comparison(const Comparison& cmp) {
  return compare_xml(cmp, timestamp_text(cmp.current_start_time),
                     cmp.current_hostname.empty() ? "localhost" : cmp.current_hostname);
}

}  // namespace iofab
