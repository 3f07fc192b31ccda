// The columns of a phase kind's row (PhaseKind, phase.h) that the driver and the reports read instead of
// testing a kind by its name. They are plain data: the reports layer sits above workloads/, so where a
// column is about a page or the console it names what to draw (an enum) and reports/ draws it.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace iofab {

// Whether `run --scale N` (--set checkpoint_scale=N) sets a phase's scale param.
enum class ScaleRule {
  kNever,
  kAlways,          // checkpoint: its full size is its model's
  kWhenScaleGiven,  // train_read: only where the suite states its dataset at full size (it gives a scale)
};

// A param by which a phase names an earlier phase whose files it reads (a restore's `checkpoint`). The
// suite reader holds it: the named phase exists, is of kind, runs before it, not beside it in its
// concurrent group.
struct PhaseLink {
  std::string_view param;  // its name: a restore's checkpoint
  std::string_view kind;   // the kind the named phase must be
  std::string_view what;   // what it leaves for this phase, for messages: "its checkpoint"
  // The param's absence: "" leaves the phase unlinked; otherwise the nearest earlier phase of kind is
  // its source, and with none the suite is refused: PATH + ": " + missing + ": no KIND phase runs
  // before NAME; " + missing_hint.
  std::string_view missing{};
  std::string_view missing_hint{};
  // A param that makes the phase read from elsewhere (a restore's `from`): no link is checked.
  std::string_view unless_param{};
  // MLPerf's rule 4.7.1 times the gap from the source's writes to this phase's read-back.
  bool read_back = false;
  // Optional: why the source phase (its resolved params, its name) cannot serve this phase (its params),
  // as the text that follows the phase's JSON path (".reshard_to: loads tensors, but ..."); "" when it can.
  std::string (*check_source)(const nlohmann::json& params, const nlohmann::json& source_params,
                              const std::string& source_name) = nullptr;
};

// The plots a phase kind's figures draw on the page of several reports (reports/report_plots.cc).
enum class PhasePlot {
  kLatencyCdf,       // its per-sample read latency histogram as a CDF
  kCheckpointStall,  // each checkpoint's stall against the allowed stall
  kRestoreTime,      // its restore time, as run and projected, against the restore budget
};

// The prose the page and the markdown put under a phase's metrics, read from its details
// (reports/phase_definitions.cc).
enum class PhaseDefinitions { kNone, kCheckpointStall, kRestoreBudget };

// The lines the console summary adds under a phase's checks from its details (reports/console_report.cc).
enum class ConsoleLine {
  kCollectivesVsVerbs,  // each collective's busbw over this verbs ceiling
  kLoaderVsCeiling,     // the framework loader's figure beside the native loader's ceiling
  kBoundBy,             // a pipeline's slowest stage
};

}  // namespace iofab
