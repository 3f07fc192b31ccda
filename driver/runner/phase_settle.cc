#include "driver/runner/phase_settle.h"

#include <algorithm>
#include <cmath>

#include "harness/results/check_op.h"

namespace iofab {

using nlohmann::json;

namespace {

// Which way is good, so `compare` reads each metric's direction from the report itself.
const char* better_name(Better b) {
  switch (b) {
    case Better::kHigher:
      return "higher";
    case Better::kLower:
      return "lower";
    case Better::kNeither:
      return "neither";
  }
  return "neither";
}

void settle_status(const PhaseEnd& end, const PhaseResult& result, PhaseReport* pr,
                   std::string* comm_failure) {
  const std::string signal = "interrupted by signal " + std::to_string(end.stop_signal);
  if (!result.skip_reason.empty()) {
    pr->status = PhaseStatus::kSkipped;
    pr->reason = result.skip_reason;
  } else if (end.comm.failed()) {
    // A rank whose process is gone is an error, even when the launcher's stop signal is how we noticed;
    // ranks that only went silent after a stop signal were being stopped too.
    const bool stopping = end.stop_requested && end.comm.gone_ranks().empty();
    const std::string why = end.status.ok() ? "lost contact with other ranks" : end.status.message();
    if (comm_failure->empty() || end.on_run_comm) *comm_failure = why;
    pr->status = stopping ? PhaseStatus::kInterrupted : PhaseStatus::kError;
    pr->reason = stopping ? signal + "; " + why : why;
  } else if (end.status.code() == Status::Code::kInterrupted || (end.stop_requested && !end.status.ok())) {
    pr->status = PhaseStatus::kInterrupted;
    pr->reason = signal;
  } else if (!end.status.ok()) {
    pr->status = PhaseStatus::kError;
    pr->reason = end.status.message();
  } else if (!result.failure.empty()) {
    pr->status = PhaseStatus::kFailed;
    pr->reason = result.failure;
  }
}

// The phase's figures, details and warnings; the skeleton's maps (and a group's "concurrent") stay.
void take_figures(PhaseResult& result, PhaseReport* pr) {
  for (const auto& [k, v] : result.metrics) pr->metrics[k] = v;
  json keep_maps = {{"units", pr->details["units"]},
                    {"better", pr->details["better"]},
                    {"headline", pr->details["headline"]}};
  const json concurrent = pr->details.value("concurrent", json());
  pr->details = std::move(result.details);
  for (const auto& [k, v] : keep_maps.items()) pr->details[k] = v;
  if (!concurrent.is_null()) pr->details["concurrent"] = concurrent;
  for (auto& w : result.warnings) pr->warnings.push_back(std::move(w));
}

// A measured metric is reported even when the phase did not pass (a restore's corrupt_shards is the point
// of its check); the check passes only when the phase did.
void evaluate_checks(const PhaseSpec& spec, PhaseReport* pr) {
  for (const auto& ch : spec.checks) {
    auto it = pr->metrics.find(ch.metric);
    const bool measured = it != pr->metrics.end() && it->is_number() && std::isfinite(it->get<double>());
    const double value = measured ? it->get<double>() : 0;
    pr->checks.push_back(CheckResult{.name = ch.name,
                                     .metric = ch.metric,
                                     .op = check_op_text(ch.op),
                                     .threshold = ch.threshold,
                                     .threshold_text = ch.threshold_text,
                                     .value = value,
                                     .has_value = measured,
                                     .passed = measured && pr->status == PhaseStatus::kPassed &&
                                               check_passes(ch.op, value, ch.threshold)});
  }
}

}  // namespace

PhaseReport phase_skeleton(const PhaseSpec& spec) {
  PhaseReport pr;
  pr.name = spec.name;
  pr.kind = std::string(spec.kind->name);
  pr.params = spec.params;
  json units_map = json::object();
  json better_map = json::object();
  json headline = json::array();
  for (const auto& m : spec.kind->metrics()) {
    units_map[m.name] = std::string(unit_row(m.unit).text);
    better_map[m.name] = better_name(m.better);
    if (headline.size() < 4 && m.name.find('*') == std::string::npos) headline.push_back(m.name);
  }
  if (!spec.headline.empty()) headline = spec.headline;
  pr.details["units"] = units_map;
  pr.details["better"] = better_map;
  pr.details["headline"] = headline;
  return pr;
}

void settle_phase(const PhaseSpec& spec, const PhaseEnd& end, PhaseResult& result, PhaseReport* pr,
                  std::string* comm_failure) {
  settle_status(end, result, pr, comm_failure);
  take_figures(result, pr);
  evaluate_checks(spec, pr);
}

void slowest_setup(const std::vector<std::vector<std::optional<double>>>& per_rank,
                   std::vector<PhaseReport>* phases) {
  for (size_t i = 0; i < phases->size(); ++i) {
    std::optional<double> slowest;
    for (const auto& rank : per_rank) {
      if (i < rank.size() && rank[i] && std::isfinite(*rank[i]) && *rank[i] >= 0) {
        slowest = std::max(slowest.value_or(0.0), *rank[i]);
      }
    }
    (*phases)[i].setup_seconds = slowest;
  }
}

}  // namespace iofab
