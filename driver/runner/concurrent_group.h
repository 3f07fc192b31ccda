// Runs a suite's concurrent group (docs/phases/concurrent.md): first, when
// the group says solo, each phase alone (its folder <name>.solo, removed
// after), then every phase at once, each in its own thread with its own
// Comm (Comm::duplicate), its own folder and its own figures. The clock
// phase's end sets the others' PhaseContext::until; the phases that post
// windows (a checkpoint's bursts and drains) share one GroupWindows.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/comm/comm.h"
#include "harness/phase/phase.h"
#include "harness/results/report.h"
#include "driver/suite/suite.h"

namespace iofab {

struct MemberOutcome {
  Status status;
  PhaseResult result;
  double seconds = 0;
  std::unique_ptr<Comm> comm;  // its own; null when it could not be made (status says why)
  Progress progress;
  // The same phase alone, before the group (PhaseGroup::solo).
  bool solo_ran = false;
  Status solo_status;
  PhaseResult solo_result;
  double solo_seconds = 0;
};

struct GroupRun {
  Comm& comm;
  const PhaseGroup& group;
  std::vector<PhaseSpec>& phases;  // the suite's; the group's are [group.first, group.first + group.count)
  const std::string& run_location;
  const TargetInfo& target;
  const std::atomic<bool>& stop;
  Store* store = nullptr;
  bool keep = false;
  bool show_progress = false;
};

// Each phase alone, in order, when the group asks for it. out: one outcome per phase of the group.
void run_group_solo(const GroupRun& g, std::vector<MemberOutcome>* out);
// Every phase at once; returns when all have ended. out: one outcome per phase (after run_group_solo); a
// phase whose solo run failed ends no better (its status or failure then names the solo run).
// on_start (may be empty) runs on this thread once every phase is set up and what they measure starts.
void run_group_together(const GroupRun& g, std::vector<MemberOutcome>* out, const std::function<void()>& on_start);
// A member's report additions: details.concurrent, and <m>_solo and <m>_vs_solo for its kind's
// solo_metrics when the solo run passed.
void add_group_figures(const GroupRun& g, size_t member, const MemberOutcome& m, PhaseReport* pr);

}  // namespace iofab
