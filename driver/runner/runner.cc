#include "driver/runner/runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>

#include "harness/comm/agree.h"
#include "harness/comm/local_rank.h"
#include "harness/comm/rank_gather.h"
#include "harness/core/build_info.h"
#include "harness/core/json_text.h"
#include "harness/core/wall_clock.h"
#include "harness/fs/run_dir.h"
#include "harness/fs/target_counters.h"
#include "driver/runner/cluster_hosts.h"
#include "driver/runner/concurrent_group.h"
#include "driver/runner/host_info.h"
#include "driver/runner/live_phases.h"
#include "driver/runner/live_report.h"
#include "driver/runner/phase_settle.h"
#include "driver/runner/phase_telemetry.h"
#include "driver/runner/phase_verification.h"
#include "driver/runner/preflight.h"
#include "driver/runner/progress_line.h"
#include "driver/runner/same_run.h"
#include "driver/runner/signals.h"
#include "driver/runner/stop_watchdog.h"
#include "driver/runner/suite_steps.h"
#include "driver/suite/suite.h"
#include "driver/targets/run_target.h"
#include "harness/telemetry/sampler.h"

namespace iofab {

using nlohmann::json;

namespace {

// True when any rank saw the stop flag, or the ranks could not agree (one is lost).
bool any_rank_stopped(Comm& comm, const std::atomic<bool>& stop) {
  return !agree(comm, stop.load() ? Status::Interrupted() : Status::Ok()).ok();
}

// A setup step every rank took: the first rank's failure stops the run before any phase, as a bad
// target or suite does (exit 2).
Status agree_status(Comm& comm, const Status& mine) {
  Ballot verdict;
  if (!agree(comm, Ballot{mine}, first_failure, &verdict).ok()) {
    return Status::IoError("lost contact with other ranks");
  }
  return verdict.status.ok() ? Status::Ok() : Status::Invalid(verdict.status.message());
}

// How long ranks wait for each other after a stop signal before counting the silent ones as lost:
// OpenMPI's mpirun sends SIGKILL about a second after SIGTERM, and the report must be written before.
constexpr double kStopGraceSeconds = 0.3;
// After the grace, how long more the runner may take to get to its report before the stop
// watchdog writes one (the runner stuck in a blocking data-plane call): the launcher kills at ~1 s.
constexpr double kEmergencyAfterGraceSeconds = 0.3;

// Phases whose resolved params ask for O_DIRECT.
std::vector<std::string> direct_phase_names(const Suite& suite) {
  std::vector<std::string> names;
  for (const auto& p : suite.phases) {
    auto it = p.params.find("direct");
    if (it != p.params.end() && it->is_boolean() && it->get<bool>()) names.push_back(p.name);
  }
  return names;
}

// Who the failed comm could not reach: the lost ranks, and those alive but out of step (never lost).
std::string who_failed(const Comm& comm) {
  const std::vector<int>& lost = comm.lost_ranks();
  const std::vector<int>& astray = comm.out_of_step_ranks();
  std::string out;
  if (!lost.empty() || astray.empty()) {
    out = "lost contact with rank" + std::string(lost.size() == 1 ? " " : "s ") +
          (lost.empty() ? "?" : rank_ranges(lost));
  }
  if (!astray.empty()) {
    out += (out.empty() ? "rank" : "; rank") + std::string(astray.size() == 1 ? " " : "s ") +
           rank_ranges(astray) +
           (astray.size() == 1 ? " is alive but out of step (its answer"
                               : " are alive but out of step (their answers") +
           " could not be read)";
  }
  return out;
}

// What this rank is about to run, for agree_same_run: every field a rank must share with the others.
RunIdentity run_identity(const RunOptions& opts, const Suite& suite, const Status& loaded,
                         const std::string& target_path, const RunTargetKind& kind) {
  RunIdentity id;
  const BuildInfo& bi = build_info();
  id.fields.emplace_back("iofab", std::string(bi.version) + " (" + bi.git_sha + ")");
  // The suite as it will run: after --set (and --scale), so the same file with other sets differs.
  id.fields.emplace_back(
      "suite", loaded.ok()
                   ? "sha256 " + sha256_hex(json_text(suite.document)).substr(0, 16) + " (after --set)"
                   : "one that does not load (" + loaded.message() + ")");
  id.fields.emplace_back("target", "\"" + target_path + "\"");
  id.fields.emplace_back("target kind", std::string(kind.shown));
  char timeout[32];
  std::snprintf(timeout, sizeof timeout, "%.9g s", opts.rank_timeout_s);
  id.fields.emplace_back("--rank-timeout", timeout);
  id.fields.emplace_back("--keep", opts.keep ? "on" : "off");
  id.fields.emplace_back("--no-preflight", opts.no_preflight ? "on" : "off");
  for (const auto& f : opts.agreed) id.fields.push_back(f);
  return id;
}

// What a step's phases measured on this host, beside their own figures.
struct StepMeasure {
  json telemetry;          // this host's sampler over the step, when this rank samples it
  TargetCounters counted;  // what the target's devices (or NFS client) moved during the step
};

// What the ranks send the report's writer after the last phase.
struct Gathered {
  std::vector<std::string> hosts;     // every rank's describe_host text
  std::vector<std::string> counters;  // every rank's counters_text
  std::vector<std::string> sampled;   // every rank's telemetry, one entry a phase
  std::vector<std::vector<std::optional<double>>> setup;  // every rank's setup seconds, one entry a phase
};

// One run of a suite on this rank, in named steps (run()).
class SuiteRun {
 public:
  SuiteRun(Comm& comm, const RunOptions& opts, Report* report)
      : comm_(comm), opts_(opts), report_(report), stop_(stop_flag()) {}

  Status run() {
    if (Status s = load(); !s.ok()) return s;
    if (Status s = preflight(); !s.ok()) return s;
    if (Status s = open_run(); !s.ok()) return s;
    watch();
    report_->phases.clear();
    for (size_t first = 0; first < suite_.phases.size();) first += run_step(first);
    const Gathered parts = gather();
    if (comm_.rank() != comm_.report_rank()) return release();
    write_report(parts);
    clean_up();
    return Status::Ok();
  }

 private:
  // The suite, the same run on every rank, the target's kind and the target itself: all before anything
  // is written.
  Status load() {
    Status st = load_suite(opts_.suite, opts_.sets, &suite_);
    target_path_ = opts_.target ? *opts_.target : suite_.target ? *suite_.target : kDefaultTarget;
    // First of all, loaded or not: ranks that run different suites, targets or options would make
    // different calls and wait for each other until the rank timeout. Refused here, naming who differs.
    const RunTargetKind& kind =
        run_target_kind(target_path_, opts_.target_kinds ? *opts_.target_kinds : run_target_kinds());
    if (comm_.size() > 1) {
      if (Status same = agree_same_run(comm_, run_identity(opts_, suite_, st, target_path_, kind));
          !same.ok())
        return same;
    }
    if (!st.ok()) return st;  // the same on every rank: the suite is the same
    // What the suite may hold on this kind of target: bad input, refused before anything is written.
    if (Status fits = kind.check_suite(suite_, target_path_, comm_.size()); !fits.ok()) return fits;
    target_ = kind.make(target_path_, suite_);
    const Status mine = target_->check();
    st = agree_status(comm_, mine);
    // A target that refuses the credentials, or an endpoint that refuses the connection, is a failure at
    // run time (exit 3), not bad input.
    if (!st.ok()) return mine.code() == Status::Code::kIoError ? Status::IoError(st.message()) : st;
    // One target string may resolve to two places (each node's own AWS_ENDPOINT_URL, a symlink): refused
    // here, before the run's place is made, naming the setting and the ranks' values.
    if (comm_.size() > 1) return agree_same_place(comm_, RunIdentity{target_->placement()});
    return Status::Ok();
  }

  // Free space first: the bytes the run will hold at its peak, plus a margin (preflight.h).
  Status preflight() {
    PreflightPlan plan;
    if (Status s = plan_preflight(suite_, comm_.size(), opts_.keep, &plan); !s.ok()) return s;
    const std::optional<uint64_t> free = target_->free_bytes();
    if (plan.peak == 0 || (free && opts_.no_preflight)) return Status::Ok();
    const Status fits = check_preflight(plan, free, target_->info().path, &preflight_note_);
    return free ? agree_status(comm_, fits) : fits;
  }

  // The run's id, its place below the target, and the O_DIRECT probe where phases ask for it.
  Status open_run() {
    // Before the run's place exists: a Ctrl-C from here on stops the run and removes what it made (the
    // folder, its lock, the O_DIRECT probe) instead of killing the process with them left behind.
    install_stop_handlers();
    run_id_ = comm_.rank() == 0 ? new_run_id() : "";
    if (Status b = comm_.broadcast(&run_id_, 0); !b.ok()) return b;
    Status st = agree_status(comm_, target_->open_run(comm_, run_id_, opts_.keep));
    if (!st.ok()) return Status::Invalid("run folder: " + st.message());
    // Before any phase: a path that is each host's own folder would pass its writes and fail the first read
    // of another rank's file (docs/clusters.md).
    if (Status same = target_->agree_shared(comm_, suite_.target_scope); !same.ok()) return same;
    const std::vector<std::string> direct = direct_phase_names(suite_);
    if (direct.empty()) return Status::Ok();
    st = agree_status(comm_, target_->check_direct_io(direct, comm_.rank()));
    if (st.ok()) return st;
    // Nothing was measured: leave the target as it was; the refusal is what the user needs to read.
    if (Status rm = target_->remove_run(true); !rm.ok()) {
      return Status::Invalid(st.message() + "; cleanup: " + rm.message());
    }
    return st;
  }

  // What the phases need around them: this host's description, the telemetry sampler's host, the stop
  // flag and rank timeout on the Comm, the live report and, on rank 0 of many, the stop watchdog.
  void watch() {
    // Described once, now: it asks the CUDA runtime for devices, which can take long on a loaded node,
    // and after a stop signal the launcher leaves about a second to get the report out.
    this_host_ = json_text(describe_host());
    // Every rank's host, known to every rank before any loss: a report written after a rank is lost still
    // names its host (cluster.lost_hosts).
    if (!share_rank_hosts(comm_, this_host_, &start_hosts_).ok()) start_hosts_ = {this_host_};
    // One telemetry sampler per host: the host's first rank runs it during every phase.
    samples_host_ = suite_.telemetry_interval_s > 0 &&
                    (find_local_rank(comm_, &local_).ok() ? local_.rank == 0 : comm_.rank() == 0);
    telemetry_.assign(suite_.phases.size(), json());
    counted_.assign(suite_.phases.size(), TargetCounters{});
    setup_.assign(suite_.phases.size(), std::nullopt);
    comm_.set_stop_flag(&stop_, kStopGraceSeconds);
    comm_.set_rank_timeout(opts_.rank_timeout_s);
    header_ = std::make_unique<RunHeader>(RunHeader{.comm = comm_,
                                                    .comm_reason = opts_.comm_reason,
                                                    .target = target_->info(),
                                                    .location = target_->location(),
                                                    .keep = opts_.keep,
                                                    .run_id = run_id_,
                                                    .started = started_,
                                                    .run_start = run_start_,
                                                    .command_line = opts_.command_line,
                                                    .suite = suite_,
                                                    .sets = opts_.sets});
    live_ = std::make_unique<LiveReport>(report_, *header_, start_hosts_);
    if (comm_.size() > 1 && comm_.rank() == 0 && opts_.on_report_ready) {
      watchdog_ = std::make_unique<StopWatchdog>(stop_, stop_wake_fd(),
                                                 kStopGraceSeconds + kEmergencyAfterGraceSeconds,
                                                 [this] { write_emergency_report(); });
    }
    // Collective: every rank duplicates the Comm for its watcher.
    live_phases_ = std::make_unique<LivePhases>(comm_, opts_.live, opts_.quiet, run_id_, stop_);
  }

  // The stop watchdog's report: the run did not get back to writing its own in time.
  void write_emergency_report() {
    const std::vector<int> gone = comm_.ranks_gone_here();
    std::string ranks;
    for (int g : gone) ranks += (ranks.empty() ? "" : ", ") + std::to_string(g);
    const std::string reason =
        gone.empty()
            ? "interrupted by signal " + std::to_string(stop_signal()) +
                  " inside a data-plane call that did not return in time"
            : "lost rank" + std::string(gone.size() == 1 ? " " : "s ") + ranks +
                  " (process exited) inside a blocking data-plane call; the launcher is ending the job";
    opts_.on_report_ready(live_->partial(
        gone, gone.empty() ? PhaseStatus::kInterrupted : PhaseStatus::kError, reason,
        "written by the stop watchdog: the run did not get back to writing its report in time, so later "
        "phases and other ranks' figures are missing"));
  }

  // The report as it stands, for the report courier to write if this process ends before the real one.
  void leave_fallback() {
    if (!opts_.on_fallback_report || comm_.rank() != comm_.report_rank()) return;
    opts_.on_fallback_report(live_->partial(
        comm_.lost_ranks(), PhaseStatus::kInterrupted,
        "cut short: the report writer's process ended during this phase (killed by the launcher or a signal) "
        "before the run could report; this phase's figures are lost",
        "written by the report courier: the report writer's process ended before it wrote the report, so "
        "this is the report as it stood then; later phases and other ranks' figures are missing"));
  }

  // One step (a phase, or a concurrent group's phases together); returns how many phases it covered.
  size_t run_step(size_t first) {
    const SuiteStep step = suite_step_at(suite_, first);
    std::vector<PhaseReport> prs;
    for (size_t k = 0; k < step.count; ++k) prs.push_back(phase_skeleton(suite_.phases[first + k]));
    if (stopped_before_step()) {
      mark_not_started(&prs);
      live_->add(std::move(prs));
      return step.count;
    }
    live_->begin(step.label, step.group < 0 ? std::string(suite_.phases[first].kind->name) : "concurrent");
    leave_fallback();
    std::vector<MemberOutcome> outcomes(step.count);
    std::optional<GroupRun> group;
    if (step.group >= 0) {
      group.emplace(GroupRun{comm_, suite_.groups[static_cast<size_t>(step.group)], suite_.phases,
                             header_->location, target_->info(), stop_, &target_->store(), opts_.keep,
                             comm_.rank() == 0 && !opts_.quiet});
      run_group_solo(*group, &outcomes);
    }
    const StepMeasure measured = measure_step(step, group ? &*group : nullptr, &outcomes);
    for (size_t k = 0; k < step.count; ++k) {
      telemetry_[first + k] = measured.telemetry;
      counted_[first + k] = measured.counted;
      MemberOutcome& m = outcomes[k];
      prs[k].seconds = m.seconds;
      // This rank's until the report's writer takes the slowest rank's (slowest_setup).
      setup_[first + k] = m.result.setup_seconds;
      prs[k].setup_seconds = m.result.setup_seconds;
      if (group) add_group_figures(*group, k, m, &prs[k]);
      const PhaseEnd end{.comm = m.comm ? *m.comm : comm_,
                         .on_run_comm = !m.comm,
                         .status = m.status,
                         .stop_requested = stop_.load(),
                         .stop_signal = stop_signal()};
      settle_phase(suite_.phases[first + k], end, m.result, &prs[k], &comm_failure_);
    }
    if (!group) live_phases_->finished(prs[0]);  // the live stream's last line for it: the report's figures
    live_->add(std::move(prs));
    leave_fallback();
    return step.count;
  }

  // Whether the run stops before this step: a stop flag on any rank, or a rank lost (then said who).
  bool stopped_before_step() {
    const bool stopped = comm_.failed() || any_rank_stopped(comm_, stop_);
    if (comm_.failed() && comm_failure_.empty()) {
      // Lost between phases (the agreement to start this one): say who, not an empty reason.
      comm_failure_ = who_failed(comm_) + " before this phase could start";
    }
    return stopped;
  }

  void mark_not_started(std::vector<PhaseReport>* prs) const {
    // A wait given up after a stop signal on ranks that are alive as far as this rank knows.
    const bool stopping_only = comm_.failed() && stop_.load() && comm_.gone_ranks().empty();
    for (auto& pr : *prs) {
      pr.status = comm_.failed() && !stopping_only ? PhaseStatus::kError : PhaseStatus::kInterrupted;
      pr.reason = comm_.failed() ? "not started: " + comm_failure_ : "not started: the run was interrupted";
    }
  }

  // Runs the step's phases with telemetry over their time together (a group's, not its solo runs) and
  // the target's counters over what they measure (a group's from when every phase is set up: a loader's
  // dataset generation is not the checkpoint's writes).
  StepMeasure measure_step(const SuiteStep& step, GroupRun* group, std::vector<MemberOutcome>* outcomes) {
    const TargetInfo& target = target_->info();
    TargetCounters before = sample_target_counters(target);
    TelemetrySampler sampler({.interval_s = suite_.telemetry_interval_s, .devices = target.devices});
    if (samples_host_) sampler.start();
    live_phases_->sampler = samples_host_ ? &sampler : nullptr;
    if (group) {
      run_group_together(*group, outcomes, [&] { before = sample_target_counters(target); });
    } else {
      run_alone(suite_.phases[step.first], &(*outcomes)[0]);
    }
    live_phases_->sampler = nullptr;
    StepMeasure m;
    if (samples_host_) {
      sampler.stop();
      m.telemetry = telemetry_json(sampler, suite_.telemetry_interval_s);
      m.telemetry["host"] = local_.host.empty() ? "unknown" : local_.host;
    }
    m.counted = sample_target_counters(target) - before;
    return m;
  }

  void run_alone(PhaseSpec& spec, MemberOutcome* m) {
    PhaseContext ctx{comm_, header_->location, target_->info(), stop_, m->progress, spec.name, opts_.keep};
    ctx.store = &target_->store();
    const auto t0 = std::chrono::steady_clock::now();
    {
      ProgressLine line(spec.name, m->progress, comm_.rank() == 0 && !opts_.quiet);
      const auto watch = live_phases_->watch(spec.name, m->progress);  // null when nothing live was asked
      m->status = spec.phase->run(ctx, &m->result);
    }
    m->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  // Every rank's host, counters and telemetry to the report's writer (this rank's own where it cannot).
  Gathered gather() {
    Gathered g;
    const std::string counters = counters_text(counted_);
    if (!gather_to_root(comm_, this_host_, &g.hosts).ok()) {
      g.hosts = start_hosts_;
    } else if (!gather_to_root(comm_, counters, &g.counters).ok()) {
      g.counters.clear();
    }
    if (g.counters.empty()) g.counters = {counters};
    const std::string sampled = json(telemetry_).dump();
    if (!gather_to_root(comm_, sampled, &g.sampled).ok()) g.sampled = {sampled};
    if (!gather_to_root(comm_, setup_, &g.setup).ok()) g.setup = {setup_};
    return g;
  }

  // A rank that does not write the report: its share of the cleanup, then the writer's word.
  Status release() {
    // The writer removes the same folder and reports its own failure; this rank's could no longer reach
    // the report, which is on its way. The same two steps as the writer's (clean_up), barrier for barrier.
    if (!opts_.keep) target_->release_run().ignore_error();
    comm_.barrier().ignore_error();
    if (!opts_.keep) target_->remove_run(false).ignore_error();
    // After a loss the caller waits for the writer's word before leaving (Comm::await_release); a barrier
    // that fails has lost a rank, which the report names.
    comm_.barrier().ignore_error();
    return Status::Ok();
  }

  void write_report(const Gathered& parts) {
    fill_header(*header_, parts.hosts, comm_.lost_ranks(), report_);
    if (comm_.failed()) {
      // Lost after the last phase (gathering the report's parts): no phase said who, so say it here.
      if (comm_failure_.empty()) {
        comm_failure_ = who_failed(comm_) + " after the last phase, while gathering the report's parts";
      }
      report_->warnings.push_back(comm_failure_);
    }
    if (!preflight_note_.empty()) report_->warnings.push_back(preflight_note_);
    attach_telemetry(parts.sampled, suite_.telemetry_interval_s, &report_->phases);
    slowest_setup(parts.setup, &report_->phases);
    verify_phases(suite_, target_->info(), parts.counters, &report_->phases);
    // Joins across phases, declared by the phase kinds in the suite (each kind once).
    std::vector<const PhaseKind*> kinds;
    for (const auto& spec : suite_.phases) {
      if (std::find(kinds.begin(), kinds.end(), spec.kind) == kinds.end()) kinds.push_back(spec.kind);
    }
    for (const PhaseKind* k : kinds) {
      if (k->after_all != nullptr) k->after_all(&report_->phases);
    }
    finalize_verdict(report_);
    // The report goes out before the cleanup: removing big files can take long, and a launcher that lost
    // a rank kills the survivors about a second after asking them to stop.
    if (watchdog_) watchdog_->disarm();  // from here on this thread writes the report
    if (opts_.on_report_ready) opts_.on_report_ready(*report_);
  }

  // The writer removes the run's files, then says what is left and the free space after.
  void clean_up() {
    // Every rank lets go of what it holds in the run's place before any removes it (RunTarget::release_run).
    Status released = opts_.keep ? Status::Ok() : target_->release_run();
    comm_.barrier().ignore_error();
    Status removed = opts_.keep ? Status::Ok() : target_->remove_run(true);
    if (removed.ok()) removed = released;
    // Holds every rank until the folder is gone; a rank lost by now is already named in the report.
    comm_.barrier().ignore_error();
    Status why;
    if (const std::optional<uint64_t> after = target_->free_bytes_after(&why)) {
      report_->target["free_bytes_after"] = *after;
    } else if (!why.ok()) {
      report_->warnings.push_back("free space after the run not measured: " + why.message());
    }
    if (removed.ok()) return;
    // What is left, and the command that removes it, in the report and (cmd_run) on the console.
    const std::string command = target_->clean_command(opts_.suite);
    const std::string& location = header_->location;
    report_->warnings.push_back("cleanup: " + removed.message() + "; " + location +
                                " is left behind: remove the rest with " + command);
    report_->target["left_behind"] = {
        {"location", location}, {"error", removed.message()}, {"clean_command", command}};
  }

  Comm& comm_;
  const RunOptions& opts_;
  Report* report_;
  std::atomic<bool>& stop_;
  const std::chrono::steady_clock::time_point run_start_ = std::chrono::steady_clock::now();
  const std::string started_ = rfc3339_utc_now();
  Suite suite_;
  std::string target_path_;
  std::unique_ptr<RunTarget> target_;
  std::string preflight_note_;
  std::string run_id_;
  std::string this_host_;
  std::vector<std::string> start_hosts_;  // every rank's describe_host text, shared in watch()
  LocalRank local_;
  bool samples_host_ = false;
  std::vector<json> telemetry_;          // this host's telemetry per phase
  std::vector<TargetCounters> counted_;  // what the target's devices moved per phase, on this host
  std::vector<std::optional<double>> setup_;  // this rank's setup seconds per phase (PhaseResult)
  std::string comm_failure_;             // the first word on a lost rank
  std::unique_ptr<RunHeader> header_;
  std::unique_ptr<LiveReport> live_;
  std::unique_ptr<LivePhases> live_phases_;  // --live, --live-openmetrics, --progress-every
  // Last: it reads the live report from its own thread, so it goes first.
  std::unique_ptr<StopWatchdog> watchdog_;
};

}  // namespace

Status run_suite(Comm& comm, const RunOptions& opts, Report* report) {
  SuiteRun run(comm, opts, report);
  return run.run();
}

}  // namespace iofab
