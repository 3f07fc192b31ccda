#include "reports/repeat_stats.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "harness/results/check_op.h"
#include "harness/results/find_phase.h"

namespace iofab {

using nlohmann::json;

MetricStats compute_stats(const std::vector<double>& values) {
  MetricStats s;
  s.values = values;
  s.n = values.size();
  if (s.n == 0) return s;
  double sum = 0;
  s.min = values[0];
  s.max = values[0];
  for (double v : values) {
    sum += v;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  s.mean = sum / static_cast<double>(s.n);
  if (s.n > 1) {
    double sq = 0;
    for (double v : values) sq += (v - s.mean) * (v - s.mean);
    s.stdev = std::sqrt(sq / static_cast<double>(s.n - 1));
  }
  s.cv = s.mean != 0 ? s.stdev / std::fabs(s.mean) : 0.0;
  return s;
}

json stats_to_json(const MetricStats& s) {
  return {{"mean", s.mean}, {"stdev", s.stdev}, {"cv", s.cv},        {"n", s.n},
          {"min", s.min},   {"max", s.max},     {"values", s.values}};
}

std::optional<MetricStats> repeat_stats_of(const PhaseReport& phase, const std::string& metric) {
  if (!phase.details.is_object()) return std::nullopt;
  auto r = phase.details.find("repeat");
  if (r == phase.details.end() || !r->is_object()) return std::nullopt;
  auto stats = r->find("stats");
  if (stats == r->end() || !stats->is_object()) return std::nullopt;
  auto it = stats->find(metric);
  if (it == stats->end() || !it->is_object()) return std::nullopt;
  auto values = it->find("values");
  if (values == it->end() || !values->is_array()) return std::nullopt;
  std::vector<double> v;
  for (const auto& x : *values) {
    if (!x.is_number()) return std::nullopt;
    v.push_back(x.get<double>());
  }
  if (v.empty()) return std::nullopt;
  // Recomputed from the values, so a hand-edited mean or stdev cannot disagree with them.
  return compute_stats(v);
}

namespace {

bool op_passes(const std::string& op, double value, double threshold) {
  for (CheckOp o : {CheckOp::kGe, CheckOp::kLe, CheckOp::kGt, CheckOp::kLt, CheckOp::kEq}) {
    if (op == check_op_text(o)) return check_passes(o, value, threshold);
  }
  return false;
}

json run_record(const Report& r) {
  return {{"id", r.run.value("id", std::string())},
          {"start_time", r.run.value("start_time", std::string())},
          {"duration_s", r.run.value("duration_s", 0.0)},
          {"verdict", r.verdict}};
}

void push_unique(std::vector<std::string>* out, std::set<std::string>* seen, const std::string& s) {
  if (seen->insert(s).second) out->push_back(s);
}

// One run's phase as the repeat block lists it: status, reason, metrics and each check's value.
json phase_record(const PhaseReport& p) {
  json checks = json::array();
  for (const auto& c : p.checks) {
    checks.push_back(
        {{"name", c.name}, {"value", c.has_value ? json(c.value) : json(nullptr)}, {"passed", c.passed}});
  }
  return {{"name", p.name},
          {"status", phase_status_text(p.status)},
          {"reason", p.reason},
          {"metrics", p.metrics},
          {"checks", checks}};
}

// Every run's record, numbered from 1; *duration: the runs' durations summed.
json run_records(const std::vector<Report>& runs, double* duration) {
  json records = json::array();
  for (size_t k = 0; k < runs.size(); ++k) {
    const Report& r = runs[k];
    *duration += r.run.value("duration_s", 0.0);
    json rec = run_record(r);
    rec["index"] = k + 1;
    json phases = json::array();
    for (const auto& p : r.phases) phases.push_back(phase_record(p));
    rec["phases"] = phases;
    records.push_back(rec);
  }
  return records;
}

// What one phase's runs say together: the worst status (interrupted, then error, then skipped in every run,
// then failed on its own), its reason tagged with the run, the mean wall and setup times, each warning
// once, and every metric name in the order first seen.
struct PhaseRuns {
  bool any_error = false, any_interrupted = false, all_skipped = true;
  std::string error_reason, interrupt_reason, skip_reason, failure_reason;
  std::vector<std::string> metric_order;
  double seconds = 0, setup = 0;
  size_t present = 0, with_setup = 0;
};

void note_status(const PhaseReport& rp, const std::string& tag, PhaseRuns* a) {
  switch (rp.status) {
    case PhaseStatus::kError:
      if (!a->any_error) a->error_reason = tag + rp.reason;
      a->any_error = true;
      break;
    case PhaseStatus::kInterrupted:
      if (!a->any_interrupted) a->interrupt_reason = tag + rp.reason;
      a->any_interrupted = true;
      break;
    case PhaseStatus::kSkipped:
      a->skip_reason = rp.reason;
      break;
    case PhaseStatus::kFailed:  // with a reason: failed on its own (verification), not by a check
      if (a->failure_reason.empty() && !rp.reason.empty()) a->failure_reason = tag + rp.reason;
      break;
    default:
      break;
  }
  a->all_skipped = a->all_skipped && rp.status == PhaseStatus::kSkipped;
}

PhaseRuns gather_phase_runs(const std::vector<Report>& runs, const std::string& name, PhaseReport* p) {
  PhaseRuns a;
  std::set<std::string> metric_seen;
  std::set<std::string> seen_warnings;
  for (size_t k = 0; k < runs.size(); ++k) {
    const PhaseReport* rp = find_phase(runs[k], name);
    if (rp == nullptr) continue;
    ++a.present;
    a.seconds += rp->seconds;
    if (rp->setup_seconds) {
      a.setup += *rp->setup_seconds;
      ++a.with_setup;
    }
    note_status(*rp, runs.size() > 1 ? "run " + std::to_string(k + 1) + ": " : "", &a);
    for (const auto& w : rp->warnings) push_unique(&p->warnings, &seen_warnings, w);
    for (const auto& [metric, v] : rp->metrics.items()) {
      if (metric_seen.insert(metric).second) a.metric_order.push_back(metric);
    }
  }
  return a;
}

void set_times_and_status(const PhaseRuns& a, PhaseReport* p) {
  p->seconds = a.present > 0 ? a.seconds / static_cast<double>(a.present) : 0;
  if (a.with_setup > 0) p->setup_seconds = a.setup / static_cast<double>(a.with_setup);
  if (a.any_interrupted) {
    p->status = PhaseStatus::kInterrupted;
    p->reason = a.interrupt_reason;
  } else if (a.any_error) {
    p->status = PhaseStatus::kError;
    p->reason = a.error_reason;
  } else if (a.all_skipped && a.present > 0) {
    p->status = PhaseStatus::kSkipped;
    p->reason = a.skip_reason;
  } else if (!a.failure_reason.empty()) {
    p->status = PhaseStatus::kFailed;
    p->reason = a.failure_reason;
  }
}

// Each metric's mean over the runs that measured it (finite numbers only) into p->metrics; returns their
// statistics by name.
json metric_means(const std::vector<Report>& runs, const std::string& name,
                  const std::vector<std::string>& metric_order, PhaseReport* p) {
  json stats = json::object();
  for (const auto& metric : metric_order) {
    std::vector<double> values;
    for (const auto& r : runs) {
      const PhaseReport* rp = find_phase(r, name);
      if (rp == nullptr || !rp->metrics.contains(metric)) continue;
      const json& v = rp->metrics[metric];
      if (v.is_number() && std::isfinite(v.get<double>())) values.push_back(v.get<double>());
    }
    if (values.empty()) continue;
    const MetricStats s = compute_stats(values);
    p->metrics[metric] = s.mean;
    stats[metric] = stats_to_json(s);
  }
  return stats;
}

// The last run's checks, judged again on the means.
void judge_checks(const PhaseReport& last, PhaseReport* p) {
  for (const auto& lc : last.checks) {
    CheckResult c = lc;
    // A measured metric is shown even when the phase did not pass; it passes only when the phase did.
    const bool measured = p->metrics.contains(lc.metric) && p->metrics[lc.metric].is_number();
    c.has_value = measured;
    c.value = measured ? p->metrics[lc.metric].get<double>() : 0;
    c.passed = measured && p->status == PhaseStatus::kPassed && op_passes(lc.op, c.value, lc.threshold);
    p->checks.push_back(std::move(c));
  }
}

// The phase named as the last run's lp, over every run: means, worst status, the last run's details.
PhaseReport aggregate_phase(const std::vector<Report>& runs, const PhaseReport& lp) {
  PhaseReport p;
  p.name = lp.name;
  p.kind = lp.kind;
  p.params = lp.params;
  p.details = lp.details;
  const PhaseRuns a = gather_phase_runs(runs, lp.name, &p);
  set_times_and_status(a, &p);
  const json stats = metric_means(runs, lp.name, a.metric_order, &p);
  if (!p.details.is_object()) p.details = json::object();
  p.details["repeat"] = {{"runs", runs.size()},
                         {"stats", stats},
                         {"note",
                          "metrics are means over the runs; the other details (histograms, series, "
                          "per-rank figures) are the last run's"}};
  judge_checks(lp, &p);
  return p;
}

}  // namespace

Report aggregate_repeats(const std::vector<Report>& runs, const Report* warmup, int requested) {
  if (runs.empty()) return warmup != nullptr ? *warmup : Report{};
  const Report& last = runs.back();
  Report out;
  out.tool = last.tool;
  out.cluster = last.cluster;
  out.target = last.target;
  out.run = runs.front().run;

  double duration = 0;
  const json records = run_records(runs, &duration);
  out.run["duration_s"] = duration;
  out.run["repeat"] = {{"count", requested},
                       {"completed", runs.size()},
                       {"warmup", warmup != nullptr ? run_record(*warmup) : json(nullptr)},
                       {"runs", records}};

  std::set<std::string> seen_warnings;
  for (const Report& r : runs) {
    for (const auto& w : r.warnings) push_unique(&out.warnings, &seen_warnings, w);
  }
  for (const auto& lp : last.phases) out.phases.push_back(aggregate_phase(runs, lp));
  finalize_verdict(&out);
  return out;
}

}  // namespace iofab
