#include "reports/report.h"

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
    if (p.status == PhaseStatus::kPassed || p.status == PhaseStatus::kFailed) {
      bool all = true;
      for (const auto& c : p.checks) all = all && c.passed;
      p.status = all ? PhaseStatus::kPassed : PhaseStatus::kFailed;
    }
    for (const auto& c : p.checks) {
      if (!c.passed) {
        failed = true;
        report->verdict_reasons.push_back(p.name + ": check " + c.name + " failed" +
                                          (c.has_value ? "" : " (no value: phase " +
                                                                  std::string(phase_status_text(p.status)) + ")"));
      }
    }
    switch (p.status) {
      case PhaseStatus::kFailed: failed = true; break;
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
