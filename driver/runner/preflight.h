// Free space first: the bytes a suite holds on its target at its peak, plus a margin, against the
// target's free bytes, before anything is written. Pure functions: the runner agrees on the verdict.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "harness/core/status.h"
#include "driver/suite/suite.h"

namespace iofab {

struct PreflightPlan {
  uint64_t peak = 0;              // the bytes on the target at the suite's peak
  uint64_t retained_at_peak = 0;  // of those, what earlier phases leave for later ones
  std::string biggest;            // the step at the peak (without --keep)
  bool keep = false;              // --keep: every phase's bytes stay, the peak is their sum
};

// Margin the preflight keeps free beyond the planned bytes.
uint64_t preflight_margin(uint64_t planned);

// The peak over the suite's steps on ranks ranks. Without --keep a phase removes its files, except what it
// leaves for later phases; a concurrent group holds its phases' bytes at once (and with --keep its solo
// runs' too). Sums are checked: a total past 2^64 bytes would wrap to a small number and pass (Invalid).
Status plan_preflight(const Suite& suite, int ranks, bool keep, PreflightPlan* plan);

// The plan against free_bytes (none: the target has no such figure, and *note says the peak went
// unchecked). Invalid names the target (shown), what it has and what the suite needs.
Status check_preflight(const PreflightPlan& plan, std::optional<uint64_t> free_bytes,
                       const std::string& shown, std::string* note);

}  // namespace iofab
