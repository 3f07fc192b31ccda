#include "driver/runner/preflight.h"

#include "harness/core/checked_math.h"
#include "harness/core/units.h"
#include "driver/runner/suite_steps.h"

namespace iofab {

namespace {

std::string bytes_text(uint64_t n) {
  return std::to_string(n) + " bytes (" + units::format_bytes(static_cast<double>(n)) + ")";
}

Status too_big(const std::string& step, int ranks, bool keep) {
  return Status::Invalid("phase " + step + ": the bytes it puts on the target on " + std::to_string(ranks) +
                         " rank" + (ranks == 1 ? "" : "s") +
                         (keep ? ", with what earlier phases keep," : "") +
                         " exceed 2^64 bytes (its sizes x workers x ranks); make them smaller");
}

}  // namespace

uint64_t preflight_margin(uint64_t planned) { return (64ULL << 20) + planned / 50; }

Status plan_preflight(const Suite& suite, int ranks, bool keep, PreflightPlan* plan) {
  *plan = PreflightPlan{};
  plan->keep = keep;
  uint64_t retained = 0;
  for (size_t first = 0; first < suite.phases.size();) {
    const SuiteStep step = suite_step_at(suite, first);
    std::optional<uint64_t> bytes = 0, kept = 0;
    for (size_t k = step.first; k < step.first + step.count; ++k) {
      bytes = checked_add(bytes, suite.phases[k].phase->planned_bytes(ranks));
      kept = checked_add(kept, suite.phases[k].phase->retained_bytes(ranks));
    }
    if (step.group >= 0 && keep && suite.groups[static_cast<size_t>(step.group)].solo) {
      bytes = checked_add(bytes, bytes);
    }
    const std::optional<uint64_t> peak = checked_add(keep ? plan->peak : retained, bytes);
    const std::optional<uint64_t> left = checked_add(retained, kept);
    if (!peak || !left) return too_big(step.label, ranks, keep);
    if (keep) {
      plan->peak = *peak;
    } else if (*peak > plan->peak) {
      plan->peak = *peak;
      plan->retained_at_peak = retained;
      plan->biggest = step.label;
    }
    retained = *left;
    first += step.count;
  }
  return Status::Ok();
}

Status check_preflight(const PreflightPlan& plan, std::optional<uint64_t> free_bytes,
                       const std::string& shown, std::string* note) {
  note->clear();
  // A suite that writes nothing (a restore of another run's checkpoint) needs no free space.
  if (plan.peak == 0) return Status::Ok();
  if (!free_bytes) {
    *note = "preflight: an object store has no free-space figure, so the " + bytes_text(plan.peak) +
            " the suite puts at its peak were not checked against one";
    return Status::Ok();
  }
  const std::optional<uint64_t> need = checked_add(plan.peak, preflight_margin(plan.peak));
  if (need && *need <= *free_bytes) return Status::Ok();
  return Status::Invalid(
      "preflight: target " + shown + " has " + std::to_string(*free_bytes) + " bytes free (" +
      units::format_bytes(static_cast<double>(*free_bytes)) + "), the suite needs " + bytes_text(plan.peak) +
      (plan.keep ? " with --keep" : " for phase " + plan.biggest) +
      (plan.retained_at_peak > 0 ? " (with " + std::to_string(plan.retained_at_peak) +
                                       " bytes that earlier phases leave for later ones)"
                                 : "") +
      " plus a margin of " + units::format_bytes(static_cast<double>(preflight_margin(plan.peak))) +
      "; nothing was written");
}

}  // namespace iofab
