// A phase's report: its skeleton before it runs (names, params, units, headline), then, once it has run,
// its status from how the run ended, its figures and its checks.
#pragma once

#include <string>

#include "harness/comm/comm.h"
#include "harness/core/status.h"
#include "harness/phase/phase.h"
#include "harness/results/report.h"
#include "driver/suite/suite.h"

namespace iofab {

PhaseReport phase_skeleton(const PhaseSpec& spec);

// How a phase's run ended.
struct PhaseEnd {
  Comm& comm;            // the Comm it ran on (a concurrent group's member has its own)
  bool on_run_comm;      // comm is the run's own
  const Status& status;  // what its run returned
  bool stop_requested;   // the stop flag was set
  int stop_signal;       // the signal that set it
};

// Fills pr from how the phase ended and what it measured (result's figures move into pr). *comm_failure:
// the run's first word on a lost rank, set here when this phase is the first to see one (or it ran on the
// run's own Comm).
void settle_phase(const PhaseSpec& spec, const PhaseEnd& end, PhaseResult& result, PhaseReport* pr,
                  std::string* comm_failure);

// Each phase's setup_seconds: the largest of every rank's (per_rank[r][i], phase i; every rank waited at the
// barrier for it), or none where no rank has one.
void slowest_setup(const std::vector<std::vector<std::optional<double>>>& per_rank,
                   std::vector<PhaseReport>* phases);

}  // namespace iofab
