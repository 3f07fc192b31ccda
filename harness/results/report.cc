#include "harness/results/report.h"

namespace iofab {

const char* phase_status_text(PhaseStatus s) {
  switch (s) {
    case PhaseStatus::kPassed: return "passed";
    case PhaseStatus::kFailed: return "failed";
    case PhaseStatus::kSkipped: return "skipped";
    case PhaseStatus::kError: return "error";
    case PhaseStatus::kInterrupted: return "interrupted";
  }
  return "error";
}

void finalize_verdict(Report* report) {
  bool failed = false, error = false, interrupted = false;
  report->verdict_reasons.clear();
  for (auto& p : report->phases) {
    // A phase failed with a reason failed on its own (a restore that found corrupt shards): it stays
    // failed whatever its checks say. Without a reason, failed means a check failed.
    const bool own_failure = p.status == PhaseStatus::kFailed && !p.reason.empty();
    const PhaseStatus ran = p.status;  // how it ended before its checks count
    if (p.status == PhaseStatus::kPassed || p.status == PhaseStatus::kFailed) {
      bool all = true;
      for (const auto& c : p.checks) all = all && c.passed;
      p.status = all && !own_failure ? PhaseStatus::kPassed : PhaseStatus::kFailed;
    }
    const bool trusted = p.status == PhaseStatus::kPassed || p.status == PhaseStatus::kFailed;
    for (const auto& c : p.checks) {
      if (!c.passed) {
        failed = true;
        const std::string status = phase_status_text(p.status);
        // A phase that ran to its end without the figure did not measure it: "phase failed" would blame
        // the phase for what is the check's own failing.
        const bool ran_to_end = ran == PhaseStatus::kPassed || ran == PhaseStatus::kFailed;
        report->verdict_reasons.push_back(p.name + ": check " + c.name + " failed" +
                                          (!c.has_value && ran_to_end
                                               ? " (no value: the phase did not measure " + c.metric + ")"
                                           : !c.has_value ? " (no value: phase " + status + ")"
                                           : !trusted     ? " (phase " + status + ")"
                                                          : ""));
      }
    }
    switch (p.status) {
      case PhaseStatus::kFailed:
        failed = true;
        if (own_failure) report->verdict_reasons.push_back(p.name + ": failed: " + p.reason);
        break;
      case PhaseStatus::kError:
        error = true;
        report->verdict_reasons.push_back(p.name + ": error: " + p.reason);
        break;
      case PhaseStatus::kInterrupted:
        interrupted = true;
        report->verdict_reasons.push_back(p.name + ": interrupted");
        break;
      default: break;
    }
  }
  report->verdict = interrupted ? "interrupted" : error ? "error" : failed ? "failed" : "passed";
}

int exit_code_for(const Report& report) {
  if (report.verdict == "interrupted") return 130;
  if (report.verdict == "error") return 3;
  if (report.verdict == "failed") return 1;
  return 0;
}

}  // namespace iofab
