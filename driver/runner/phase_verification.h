// How each phase's figure was verified: what the target's devices (or NFS client) counted on every host
// during the phase, against the bytes the phase says it moved (docs/verification.md).
#pragma once

#include <string>
#include <vector>

#include "harness/fs/target.h"
#include "harness/fs/target_counters.h"
#include "harness/results/report.h"
#include "harness/results/verification.h"
#include "driver/suite/suite.h"

namespace iofab {

// One rank's counters for every phase, as sent to the report's writer: the host (ranks on one host see
// the same devices, counted once) and per phase [device_seen, read, written, client_seen, read, written].
std::string counters_text(const std::vector<TargetCounters>& per_phase);

// Sums what each host counted for phase i (the first rank of each host speaks for it); a host that
// could not count makes the sum unseen. Malformed texts are left out.
CountedBytes counted_for_phase(const std::vector<std::string>& texts, size_t i);

// The verification level of each phase that moved bytes through the target and ran to the end.
// counters: every rank's counters_text.
void verify_phases(const Suite& suite, const TargetInfo& target, const std::vector<std::string>& counters,
                   std::vector<PhaseReport>* phases);

}  // namespace iofab
