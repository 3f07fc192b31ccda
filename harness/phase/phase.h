// Phase: the contract every phase of training (ingest, train_read, checkpoint, ...)
// keeps with the runner. The phases themselves and their table live in
// workloads/ (workloads/phase_table.h), above this layer.
// A phase kind parses its params from the suite, says how many bytes it
// will put on the target (for the free-space preflight), and runs on every
// rank. Measuring code fills a plain PhaseResult; reporters read it later.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/comm/comm.h"
#include "harness/core/status.h"
#include "harness/engines/engine.h"
#include "harness/fs/target.h"
#include "harness/phase/group_windows.h"
#include "harness/phase/phase_columns.h"
#include "harness/phase/unit.h"
#include "harness/results/report.h"
#include "harness/store/store.h"

namespace iofab {

class ParamReader;

// Which way is good, for checks' defaults and for `compare`.
enum class Better { kHigher, kLower, kNeither };

struct MetricInfo {
  std::string name;  // may end in ".*" for a family, e.g. "busbw.*"
  Unit unit;
  Better better;
  std::string description;
};

// Live counters a phase bumps so the console can show progress.
struct Progress {
  std::atomic<uint64_t> done_bytes{0};
  std::atomic<uint64_t> total_bytes{0};
};

// Makes the engine for a phase's worker; tests inject one (for example a fixed delay per write).
using EngineMaker =
    std::function<Status(std::string_view name, const EngineOptions& opts, std::unique_ptr<Engine>* out)>;

struct PhaseContext {
  Comm& comm;
  const std::string& run_dir_path;    // for messages and reports; files go through store
  const TargetInfo& target;
  const std::atomic<bool>& stop;      // set on SIGINT/SIGTERM
  Progress& progress;
  std::string phase_name;             // unique in the suite; use it to name the phase's folder
  bool keep = false;                  // --keep: leave the phase's files
  const EngineMaker* engines = nullptr;  // null: the engine table (make_engine)
  // The run folder as a Store: every namespace operation of a phase goes through it (folders,
  // create, open, commit, sync, list, remove); the engines move the bytes on its handles.
  Store* store = nullptr;
  // In a concurrent group (docs/phases/concurrent.md), else null:
  // - until: set when the group's clock phase has ended; a phase kind that follows_clock runs until it
  //   is set (on every rank: it agrees at its own boundaries) instead of to its own end;
  // - windows: the group's board, where a kind that publishes_windows posts its busy windows and
  //   others read them to split their figures into inside and outside.
  // - ready_to_start: a kind that sets_up_first calls it once set up (its dataset generated), before
  //   what it measures; it returns when every phase of the group is there (or on stop).
  const std::atomic<bool>* until = nullptr;
  GroupWindows* windows = nullptr;
  std::function<void()> ready_to_start{};
};

// The engine named name (already resolved from "auto"), from ctx's factory or the engine table.
Status make_phase_engine(const PhaseContext& ctx, std::string_view name, const EngineOptions& opts,
                         std::unique_ptr<Engine>* out);

struct PhaseResult {
  std::map<std::string, double> metrics;        // public names, base units
  nlohmann::json details = nlohmann::json::object();  // histograms, series, per rank, per epoch
  std::vector<std::string> warnings;
  std::string skip_reason;                      // non-empty: the phase was skipped
  // Non-empty: the phase ran and measured, and found the system under test wrong (a checkpoint shard that
  // fails verification). The phase is `failed` (exit 1) with its metrics and checks reported; a run that
  // could not measure returns an error Status instead (exit 3).
  std::string failure;
  // This rank's untimed setup before what the phase measures (files created, opened and preallocated, a
  // source checkpoint or dataset written, a barrier), added up over its timed windows (add_setup); the
  // runner reports the slowest rank's as phases[].setup_seconds. nullopt: the phase has no timed window.
  std::optional<double> setup_seconds;
};

// Adds the setup from start_ns to t0_ns (CLOCK_MONOTONIC, now_ns()) to result->setup_seconds: the phase's
// start (or the end of its previous window) to where a timed window begins. A phase with several windows
// calls it before each; the parts add up.
void add_setup(PhaseResult* result, uint64_t start_ns, uint64_t t0_ns);

class Phase {
 public:
  Phase() = default;
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;
  virtual ~Phase() = default;

  // Bytes all ranks together will hold on the target at the phase's peak;
  // nullopt when that exceeds 2^64 - 1 (computed with checked_math.h: a
  // wrapped product would pass the free-space preflight).
  virtual std::optional<uint64_t> planned_bytes(int ranks) const = 0;
  // Bytes the phase leaves on the target for later phases (a checkpoint that a
  // restore reads back); they count toward every later phase's peak.
  virtual std::optional<uint64_t> retained_bytes(int /*ranks*/) const { return 0; }
  // On an object store (an s3:// target) and of a kind that runs there (PhaseKind::object_store): a
  // param that makes sense on a filesystem only is refused (InvalidArgument), the message starting with
  // the param's name; the runner puts the phase's path before it ("phases.NAME.") and asks before
  // anything is written, so the suite exits 2.
  virtual Status check_on_object_store() const { return Status::Ok(); }
  // The longest store path it makes below its own folder (the folder's name not counted) on ranks ranks;
  // 0 for a phase that writes nothing. On an object store every path is a key, and S3 refuses a key over
  // 1,024 bytes: the runner refuses a prefix that would make one before anything is written.
  virtual size_t longest_path_bytes(int /*ranks*/) const { return 0; }
  // Runs on every rank. A runtime failure returns IoError (the phase is
  // reported as error, later phases go on); Interrupted when ctx.stop was
  // seen. The merged result is meaningful on rank 0 only.
  virtual Status run(PhaseContext& ctx, PhaseResult* result) = 0;
};

struct PhaseKind {
  std::string_view name;
  std::string_view summary;
  // Reads every param with r; on success stores the phase (errors go to r).
  std::unique_ptr<Phase> (*parse)(ParamReader& r);
  const std::vector<MetricInfo>& (*metrics)();
  // Optional: called once on the report's writer after every phase of the suite has finished, when the
  // suite holds a phase of this kind, with every phase's report: to join figures across phases (the
  // rdma phase puts the collectives' busbw beside its verbs ceiling). The runner knows no such join.
  void (*after_all)(std::vector<PhaseReport>* phases) = nullptr;
  // The metric that counts the bytes the phase read from or wrote to the target, if any: the runner
  // holds it against the target's device (or NFS client) counters to give the figure its verification
  // level. Empty for a phase that moves no bytes through the target.
  std::string_view target_read_bytes{};
  std::string_view target_write_bytes{};
  // It runs where the run's store is an object store (an s3:// target): it moves its bytes through the
  // store's own engine and commits files with Engine::fsync, or it touches no storage at all. A suite
  // with any other kind is refused on such a target before anything is written.
  bool object_store = false;
  // In a concurrent group with a clock it runs until the clock phase ends (PhaseContext::until).
  bool follows_clock = false;
  // In a concurrent group it posts its windows to PhaseContext::windows.
  bool publishes_windows = false;
  // In a concurrent group it calls PhaseContext::ready_to_start after its setup; the others pass the
  // start gate as they start.
  bool sets_up_first = false;
  // The metrics a concurrent group sets beside the same phase run alone: each gets <m>_solo and
  // <m>_vs_solo (concurrent / solo) in the metric table (with_solo_metrics).
  std::span<const std::string_view> solo_metrics{};
  // The metrics that count what the phase verified in the bytes it read (corrupt_shards, verified_bytes):
  // not measured when its engine moves no data (engine null). A check on one is then refused when the suite
  // is read, and the phase leaves them out of its figures rather than report a 0 it never measured.
  std::span<const std::string_view> verify_metrics{};
  // Every rank reads only what it wrote itself, or nothing from the target: it runs with target_scope
  // "host" (each host its own folder).
  bool per_host = false;
  ScaleRule scale = ScaleRule::kNever;
  // The params that name an earlier phase whose files it reads (phase_columns.h).
  std::span<const PhaseLink> links{};
  // What the page of several reports draws from it, and the prose under its metrics.
  std::span<const PhasePlot> plots{};
  PhaseDefinitions definitions = PhaseDefinitions::kNone;
  // A metric the side-by-side page shows as a pass/fail row (>= 1) even when no check asks about it.
  std::string_view budget_metric{};
  std::span<const ConsoleLine> console_lines{};
};

// True when metric is one of kind's verify_metrics.
bool is_verify_metric(const PhaseKind& kind, std::string_view metric);

// table plus, for each of solo's metrics, <m>_solo (same unit and direction) and <m>_vs_solo (a ratio).
std::vector<MetricInfo> with_solo_metrics(std::vector<MetricInfo> table, std::span<const std::string_view> solo);

// The metric's info for a phase kind, matching families ("busbw.*"); nullptr if unknown.
const MetricInfo* find_metric(const PhaseKind& kind, std::string_view metric);

}  // namespace iofab
