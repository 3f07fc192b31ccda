#include "reports/compare.h"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "harness/core/units.h"
#include "harness/results/find_phase.h"
#include "reports/console_report.h"
#include "reports/reducibility_check.h"
#include "reports/repeat_stats.h"

namespace iofab {

using nlohmann::json;

const char* metric_verdict_text(MetricVerdict v) {
  switch (v) {
    case MetricVerdict::kImproved:
      return "improved";
    case MetricVerdict::kUnchanged:
      return "unchanged";
    case MetricVerdict::kWithinNoise:
      return "within noise";
    case MetricVerdict::kRegressed:
      return "REGRESSED";
    case MetricVerdict::kNeutral:
      return "info";
    case MetricVerdict::kMissing:
      return "MISSING";
    case MetricVerdict::kNew:
      return "new";
    case MetricVerdict::kUnusable:
      return "UNUSABLE";
  }
  return "?";
}

bool verdict_fails(MetricVerdict v) {
  return v == MetricVerdict::kRegressed || v == MetricVerdict::kMissing || v == MetricVerdict::kUnusable;
}

size_t Comparison::count(MetricVerdict v) const {
  return static_cast<size_t>(std::count_if(metrics.begin(), metrics.end(),
                                           [v](const MetricComparison& m) { return m.verdict == v; }));
}

bool Comparison::failed() const {
  return !unusable_phases.empty() || std::any_of(metrics.begin(), metrics.end(), [](const MetricComparison& m) {
           return verdict_fails(m.verdict);
         });
}

std::optional<double> parse_tolerance(const std::string& text) {
  auto f = units::parse_fraction(text);
  if (!f || !std::isfinite(*f) || *f < 0) return std::nullopt;
  // "5" is far more likely a forgotten '%' than 500%: more than 100% must say so with '%'.
  if (*f > 1 && text.find('%') == std::string::npos) return std::nullopt;
  return f;
}

namespace {

bool wanted(const CompareOptions& opts, const std::string& phase, const std::string& metric) {
  if (opts.metric_globs.empty()) return true;
  const std::string qualified = phase + "/" + metric;
  for (const auto& g : opts.metric_globs) {
    if (fnmatch(g.c_str(), metric.c_str(), 0) == 0 || fnmatch(g.c_str(), qualified.c_str(), 0) == 0)
      return true;
  }
  return false;
}

std::string percent(double change) {
  // Only a baseline of 0 gives no finite change (judge keeps the rest finite).
  if (std::isnan(change)) return "n/a";
  if (!std::isfinite(change)) return change > 0 ? "up from 0" : "down from 0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", change * 100);
  return buf;
}

std::string short_sha(const std::string& s) { return s.size() > 12 ? s.substr(0, 12) : s; }

// What differs between the two runs' suites; empty when they are the same (or cannot be told apart).
std::vector<std::string> suite_differences(const Report& b, const Report& c) {
  std::vector<std::string> out;
  const json bs = b.run.is_object() ? b.run.value("suite", json::object()) : json::object();
  const json cs = c.run.is_object() ? c.run.value("suite", json::object()) : json::object();
  const std::string bsha = bs.is_object() ? bs.value("sha256", "") : "";
  const std::string csha = cs.is_object() ? cs.value("sha256", "") : "";
  if (!bsha.empty() && !csha.empty() && bsha != csha) {
    out.push_back("different suites: baseline ran \"" + (bs.is_object() ? bs.value("name", "") : "") +
                  "\" (sha256 " + short_sha(bsha) + "), current ran \"" +
                  (cs.is_object() ? cs.value("name", "") : "") + "\" (sha256 " + short_sha(csha) + ")");
  }
  const json bsets = bs.is_object() ? bs.value("sets", json::array()) : json::array();
  const json csets = cs.is_object() ? cs.value("sets", json::array()) : json::array();
  if (bsets != csets) {
    out.push_back("different --set overrides: baseline " + bsets.dump() + ", current " + csets.dump());
  }
  return out;
}

void judge(double tolerance, MetricComparison* m) {
  const double b = *m->baseline, c = *m->current;
  const double d = c - b;
  // c - b overflows when the two lie near opposite ends of a double's range: c/|b| - b/|b| does not.
  const double rel = std::isfinite(d) ? d / std::fabs(b) : c / std::fabs(b) - std::copysign(1.0, b);
  m->change = b != 0 ? rel : (d == 0 ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), d));
  m->tolerance_abs = tolerance * std::fabs(b);
  const size_t nb = m->baseline_runs, nc = m->current_runs;
  const double vb = m->baseline_stdev * m->baseline_stdev, vc = m->current_stdev * m->current_stdev;
  if (nb >= 2 && nc >= 2) {
    m->noise = 2 * std::sqrt(vb / static_cast<double>(nb) + vc / static_cast<double>(nc));
  } else if (nb >= 2) {
    m->noise = 2 * std::sqrt(vb / static_cast<double>(nb) + vb / static_cast<double>(nc));
  } else if (nc >= 2) {
    m->noise = 2 * std::sqrt(vc / static_cast<double>(nb) + vc / static_cast<double>(nc));
  }
  const std::string tol_text =
      percent(tolerance).substr(1) + " (" + format_metric_value(m->tolerance_abs, m->unit) + ")";
  const std::string noise_text = "the noise band " + format_metric_value(m->noise, m->unit) + " (" +
                                 std::to_string(nb) + " vs " + std::to_string(nc) + " runs)";
  if (m->better == "neither") {
    m->verdict = MetricVerdict::kNeutral;
    m->reason = percent(m->change) + "; no better direction for this metric";
    return;
  }
  const double bad = m->better == "higher" ? -d : d;
  const double limit = std::max(m->tolerance_abs, m->noise);
  if (bad > limit) {
    m->verdict = MetricVerdict::kRegressed;
    m->reason = percent(m->change) + " the bad way (" + m->better + " is better): beyond the tolerance " +
                tol_text + (m->noise > 0 ? " and " + noise_text : "");
  } else if (bad > m->tolerance_abs) {
    m->verdict = MetricVerdict::kWithinNoise;
    m->reason =
        percent(m->change) + " the bad way: beyond the tolerance " + tol_text + " but inside " + noise_text;
  } else if (-bad > limit) {
    m->verdict = MetricVerdict::kImproved;
    m->reason = percent(m->change) + " (" + m->better + " is better)";
  } else {
    m->verdict = MetricVerdict::kUnchanged;
    m->reason = percent(m->change) + ": within the tolerance " + tol_text +
                (m->noise > m->tolerance_abs ? " or " + noise_text : "");
  }
}

void fill_side(const PhaseReport* p, const std::string& metric, std::optional<double>* value, size_t* runs,
               double* stdev) {
  if (p == nullptr) return;
  *value = metric_value(*p, metric);
  if (auto s = repeat_stats_of(*p, metric)) {
    *runs = s->n;
    *stdev = s->stdev;
  }
}

std::string phase_state(const PhaseReport& p) {
  std::string s = phase_status_text(p.status);
  if (!p.reason.empty()) s += ": " + p.reason;
  return s;
}

// Ran to a verdict: its figures are a whole measurement.
bool ran_to_verdict(const PhaseReport* p) {
  return p == nullptr || p->status == PhaseStatus::kPassed || p->status == PhaseStatus::kFailed;
}

}  // namespace

namespace {

// A metric with a value on both sides, judged against the tolerance.
bool compared(const MetricComparison& m) {
  return m.verdict != MetricVerdict::kNew && m.verdict != MetricVerdict::kMissing &&
         m.verdict != MetricVerdict::kUnusable;
}

std::string nothing_compared(const std::string& base_src, const std::string& cur_src, const Report& B,
                             const Report& C) {
  std::string skipped;
  for (const auto& p : B.phases) {
    const PhaseReport* other = find_phase(C, p.name);
    if (p.status == PhaseStatus::kSkipped && other != nullptr && other->status == PhaseStatus::kSkipped) {
      skipped += (skipped.empty() ? "" : ", ") + p.name;
    }
  }
  return "nothing was compared: no metric has a value in both " + base_src + " and " + cur_src +
         (skipped.empty() ? "" : " (skipped in both: " + skipped + ")") +
         "; a comparison of nothing cannot pass: compare reports whose phases ran";
}

// Why the two reports are not like with like (schema, suite): a refusal, or notes under --force.
Status refuse_unlike(const LoadedReport& baseline, const LoadedReport& current, const CompareOptions& opts,
                     Comparison* cmp) {
  std::vector<std::string> refusals;
  if (baseline.schema_version != current.schema_version) {
    refusals.push_back("different report schema versions: baseline " +
                       std::to_string(baseline.schema_version) + ", current " +
                       std::to_string(current.schema_version));
  }
  for (auto& d : suite_differences(baseline.report, current.report)) refusals.push_back(std::move(d));
  if (refusals.empty()) return Status::Ok();
  if (!opts.force) {
    std::string msg = "cannot compare " + baseline.source + " with " + current.source + ":";
    for (const auto& r : refusals) msg += "\n  " + r;
    msg += "\ncompare only like with like, or pass --force to compare what matches by name anyway";
    return Status::Invalid(msg);
  }
  for (const auto& r : refusals) cmp->notes.push_back("--force: " + r);
  return Status::Ok();
}

// The report's first host's name; "" for none.
std::string first_hostname(const Report& r) {
  if (r.cluster.is_object() && r.cluster.contains("hosts") && r.cluster["hosts"].is_array() &&
      !r.cluster["hosts"].empty() && r.cluster["hosts"][0].is_object()) {
    return r.cluster["hosts"][0].value("hostname", "");
  }
  return "";
}

// The baseline's phases in order, then the current report's that the baseline lacks.
std::vector<std::string> phase_names_of(const Report& B, const Report& C) {
  std::vector<std::string> names;
  for (const auto& p : B.phases) names.push_back(p.name);
  for (const auto& p : C.phases) {
    if (find_phase(B, p.name) == nullptr) names.push_back(p.name);
  }
  return names;
}

// Why phase name's figures are not compared ("" when they are): a side that did not run to a verdict.
// Skipped on both sides: nothing was measured on either, nothing is lost. Otherwise a phase that did not
// run to a verdict fails the compare, whichever side it is on.
std::string unusable_phase(const std::string& name, const PhaseReport* bp, const PhaseReport* cp,
                           Comparison* cmp) {
  if (bp == nullptr && cp == nullptr) return "";
  if (bp != nullptr && cp != nullptr && bp->status == PhaseStatus::kSkipped &&
      cp->status == PhaseStatus::kSkipped) {
    cmp->notes.push_back("phase " + name + " skipped in both reports (current: " + phase_state(*cp) + ")");
    return "";
  }
  std::string unusable;
  if (!ran_to_verdict(cp)) {
    unusable = "current: phase " + name + " " + phase_state(*cp);
    cmp->unusable_phases.push_back(unusable);
  }
  if (!ran_to_verdict(bp)) {
    const std::string b = "baseline: phase " + name + " " + phase_state(*bp);
    cmp->unusable_phases.push_back(b);
    if (unusable.empty()) unusable = b;
  }
  return unusable;
}

// The verdict of a metric with a value on at most one side, or of an unusable phase; judged otherwise.
void settle_metric(const std::string& name, const PhaseReport* bp, const PhaseReport* cp,
                   const std::string& unusable, double tolerance, MetricComparison* m) {
  if (m->baseline && !m->current) {
    m->verdict = MetricVerdict::kMissing;
    if (cp == nullptr) {
      m->reason = "phase " + name + " is not in the current report";
    } else if (cp->metrics.contains(m->metric)) {
      m->reason = "no value (null) in the current report";
    } else {
      m->reason = "not in the current report";
    }
    if (cp != nullptr && cp->status != PhaseStatus::kPassed && cp->status != PhaseStatus::kFailed) {
      m->reason += " (phase " + phase_state(*cp) + ")";
    }
  } else if (!m->baseline) {
    m->verdict = MetricVerdict::kNew;
    m->reason = bp == nullptr ? "phase " + name + " is not in the baseline"
                              : (bp->metrics.contains(m->metric) ? "no value (null) in the baseline"
                                                                 : "not in the baseline");
  } else if (!unusable.empty()) {
    m->verdict = MetricVerdict::kUnusable;
    m->reason = unusable + "; its figures are not a whole run and are not compared";
  } else {
    judge(tolerance, m);
  }
}

// Every wanted metric of phase name, on either side, compared.
void compare_phase(const std::string& name, const PhaseReport* bp, const PhaseReport* cp,
                   const CompareOptions& opts, Comparison* cmp) {
  if (bp == nullptr) cmp->phases_only_in_current.push_back(name);
  if (cp == nullptr) cmp->phases_only_in_baseline.push_back(name);
  if (bp != nullptr && cp != nullptr && bp->kind != cp->kind) {
    cmp->notes.push_back("phase " + name + " is kind " + bp->kind + " in the baseline but " + cp->kind +
                         " in the current report");
  }
  const std::string unusable = unusable_phase(name, bp, cp, cmp);
  const PhaseReport* ref = cp != nullptr ? cp : bp;
  for (const auto& metric : ordered_metric_names({bp, cp})) {
    if (!wanted(opts, name, metric)) continue;
    MetricComparison m;
    m.phase = name;
    m.metric = metric;
    // The current report's word on unit and direction wins: it is the newer writer.
    const bool cur_says = cp != nullptr && cp->details.is_object() && cp->details.contains("better");
    const PhaseReport* dir_src = cur_says ? cp : (bp != nullptr ? bp : cp);
    m.better = metric_better(*dir_src, metric);
    m.unit = metric_unit(*ref, metric);
    fill_side(bp, metric, &m.baseline, &m.baseline_runs, &m.baseline_stdev);
    fill_side(cp, metric, &m.current, &m.current_runs, &m.current_stdev);
    if (!m.baseline && !m.current) continue;  // null on both sides: nothing to compare, nothing lost
    settle_metric(name, bp, cp, unusable, opts.tolerance, &m);
    cmp->metrics.push_back(std::move(m));
  }
}

}  // namespace

Status compare_reports(const LoadedReport& baseline, const LoadedReport& current, const CompareOptions& opts,
                       Comparison* out) {
  Comparison cmp;
  cmp.baseline_source = baseline.source;
  cmp.current_source = current.source;
  cmp.tolerance = opts.tolerance;
  const Report& B = baseline.report;
  const Report& C = current.report;
  cmp.current_start_time = C.run.is_object() ? C.run.value("start_time", "") : "";
  cmp.current_hostname = first_hostname(C);
  if (Status s = refuse_unlike(baseline, current, opts, &cmp); !s.ok()) return s;
  // (Differing reducibility means a differing suite or --set, refused above without --force.)
  for (const auto& m : reducibility_mismatches({&B, &C}, {"baseline", "current"})) cmp.notes.push_back(m);
  for (const auto& name : phase_names_of(B, C))
    compare_phase(name, find_phase(B, name), find_phase(C, name), opts, &cmp);
  if (!opts.metric_globs.empty() && cmp.metrics.empty()) {
    std::string globs;
    for (const auto& g : opts.metric_globs) globs += (globs.empty() ? "" : " ") + g;
    // A typo in a CI job's glob must not turn the gate into one that always passes.
    return Status::Invalid("no metric of " + baseline.source + " or " + current.source +
                           " matched --metric " + globs);
  }
  if (!cmp.failed() && std::none_of(cmp.metrics.begin(), cmp.metrics.end(), compared)) {
    // Every phase skipped (or only new metrics): "0 regressed, passed" would be a gate that cannot fail.
    return Status::Invalid(nothing_compared(baseline.source, current.source, B, C));
  }
  *out = std::move(cmp);
  return Status::Ok();
}

}  // namespace iofab
