#include "reports/repeat_stats.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "harness/results/check_op.h"

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

const PhaseReport* find_phase(const Report& r, const std::string& name) {
  for (const auto& p : r.phases) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

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
  json records = json::array();
  for (size_t k = 0; k < runs.size(); ++k) {
    const Report& r = runs[k];
    duration += r.run.value("duration_s", 0.0);
    json rec = run_record(r);
    rec["index"] = k + 1;
    json phases = json::array();
    for (const auto& p : r.phases) {
      json checks = json::array();
      for (const auto& c : p.checks) {
        checks.push_back(
            {{"name", c.name}, {"value", c.has_value ? json(c.value) : json(nullptr)}, {"passed", c.passed}});
      }
      phases.push_back({{"name", p.name},
                        {"status", phase_status_text(p.status)},
                        {"reason", p.reason},
                        {"metrics", p.metrics},
                        {"checks", checks}});
    }
    rec["phases"] = phases;
    records.push_back(rec);
  }
  out.run["duration_s"] = duration;
  out.run["repeat"] = {{"count", requested},
                       {"completed", runs.size()},
                       {"warmup", warmup != nullptr ? run_record(*warmup) : json(nullptr)},
                       {"runs", records}};

  std::set<std::string> seen_warnings;
  for (size_t k = 0; k < runs.size(); ++k) {
    for (const auto& w : runs[k].warnings) push_unique(&out.warnings, &seen_warnings, w);
  }

  for (const auto& lp : last.phases) {
    PhaseReport p;
    p.name = lp.name;
    p.kind = lp.kind;
    p.params = lp.params;
    p.details = lp.details;
    bool any_error = false, any_interrupted = false, all_skipped = true;
    std::string error_reason, interrupt_reason, skip_reason, failure_reason;
    std::vector<std::string> metric_order;
    std::set<std::string> metric_seen;
    std::set<std::string> seen_phase_warnings;
    double seconds = 0, setup = 0;
    size_t present = 0, with_setup = 0;
    for (size_t k = 0; k < runs.size(); ++k) {
      const PhaseReport* rp = find_phase(runs[k], lp.name);
      if (rp == nullptr) continue;
      ++present;
      seconds += rp->seconds;
      if (rp->setup_seconds) {
        setup += *rp->setup_seconds;
        ++with_setup;
      }
      const std::string tag = runs.size() > 1 ? "run " + std::to_string(k + 1) + ": " : "";
      switch (rp->status) {
        case PhaseStatus::kError:
          if (!any_error) error_reason = tag + rp->reason;
          any_error = true;
          break;
        case PhaseStatus::kInterrupted:
          if (!any_interrupted) interrupt_reason = tag + rp->reason;
          any_interrupted = true;
          break;
        case PhaseStatus::kSkipped:
          skip_reason = rp->reason;
          break;
        case PhaseStatus::kFailed:  // with a reason: failed on its own (verification), not by a check
          if (failure_reason.empty() && !rp->reason.empty()) failure_reason = tag + rp->reason;
          break;
        default:
          break;
      }
      all_skipped = all_skipped && rp->status == PhaseStatus::kSkipped;
      for (const auto& w : rp->warnings) push_unique(&p.warnings, &seen_phase_warnings, w);
      for (const auto& [name, v] : rp->metrics.items()) {
        if (metric_seen.insert(name).second) metric_order.push_back(name);
      }
    }
    p.seconds = present > 0 ? seconds / static_cast<double>(present) : 0;
    if (with_setup > 0) p.setup_seconds = setup / static_cast<double>(with_setup);
    if (any_interrupted) {
      p.status = PhaseStatus::kInterrupted;
      p.reason = interrupt_reason;
    } else if (any_error) {
      p.status = PhaseStatus::kError;
      p.reason = error_reason;
    } else if (all_skipped && present > 0) {
      p.status = PhaseStatus::kSkipped;
      p.reason = skip_reason;
    } else if (!failure_reason.empty()) {
      p.status = PhaseStatus::kFailed;
      p.reason = failure_reason;
    }

    json stats = json::object();
    for (const auto& name : metric_order) {
      std::vector<double> values;
      for (const auto& r : runs) {
        const PhaseReport* rp = find_phase(r, lp.name);
        if (rp == nullptr || !rp->metrics.contains(name)) continue;
        const json& v = rp->metrics[name];
        if (v.is_number() && std::isfinite(v.get<double>())) values.push_back(v.get<double>());
      }
      if (values.empty()) continue;
      const MetricStats s = compute_stats(values);
      p.metrics[name] = s.mean;
      stats[name] = stats_to_json(s);
    }
    if (!p.details.is_object()) p.details = json::object();
    p.details["repeat"] = {{"runs", runs.size()},
                           {"stats", stats},
                           {"note",
                            "metrics are means over the runs; the other details (histograms, series, "
                            "per-rank figures) are the last run's"}};

    for (const auto& lc : lp.checks) {
      CheckResult c = lc;
      // A measured metric is shown even when the phase did not pass; it passes only when the phase did.
      const bool measured = p.metrics.contains(lc.metric) && p.metrics[lc.metric].is_number();
      c.has_value = measured;
      c.value = measured ? p.metrics[lc.metric].get<double>() : 0;
      c.passed = measured && p.status == PhaseStatus::kPassed && op_passes(lc.op, c.value, lc.threshold);
      p.checks.push_back(std::move(c));
    }
    out.phases.push_back(std::move(p));
  }
  finalize_verdict(&out);
  return out;
}

}  // namespace iofab
