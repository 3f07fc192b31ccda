#include "harness/runner/runner.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "harness/comm/agree.h"
#include "harness/comm/local_rank.h"
#include "harness/comm/rank_gather.h"
#include "harness/core/build_info.h"
#include "harness/core/checked_math.h"
#include "harness/core/json_text.h"
#include "harness/core/units.h"
#include "harness/core/wall_clock.h"
#include "harness/engines/io_pump.h"
#include "harness/fs/direct_probe.h"
#include "harness/fs/run_dir.h"
#include "harness/fs/target.h"
#include "harness/fs/target_counters.h"
#include "harness/runner/cluster_hosts.h"
#include "harness/runner/concurrent_group.h"
#include "harness/runner/host_info.h"
#include "harness/runner/launch_info.h"
#include "harness/runner/phase_telemetry.h"
#include "harness/runner/progress_line.h"
#include "harness/runner/s3_run.h"
#include "harness/runner/same_run.h"
#include "harness/runner/signals.h"
#include "harness/runner/stop_watchdog.h"
#include "harness/runner/target_agreement.h"
#include "harness/store/posix_store.h"
#include "harness/store/store_bytes.h"
#include "harness/suite/suite.h"
#include "harness/suite/suite_target.h"
#include "harness/telemetry/sampler.h"

namespace iofab {

using nlohmann::json;

namespace {

const char* unit_name(Unit u) {
  switch (u) {
    case Unit::kBytes: return "bytes";
    case Unit::kBytesPerSecond: return "bytes/s";
    case Unit::kSeconds: return "s";
    case Unit::kFraction: return "fraction";
    case Unit::kCount: return "count";
    case Unit::kRatio: return "ratio";
    case Unit::kOpsPerSecond: return "ops/s";
  }
  return "count";
}

// Which way is good, so `compare` reads each metric's direction from the report itself.
const char* better_name(Better b) {
  switch (b) {
    case Better::kHigher: return "higher";
    case Better::kLower: return "lower";
    case Better::kNeither: return "neither";
  }
  return "neither";
}

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

// The kept mark (kKeptMarkerName) at the root of an object store's run prefix.
Status mark_store_kept(Store& store) {
  StoreFile f;
  Status s = store.create(kKeptMarkerName, OpenOptions{}, &f);
  if (s.ok()) s = write_store_file(store, f, "");
  return s;
}

// Every rank asks its own mount (clients of one shared filesystem can mount it differently). Refused
// means the direct phases would either fail mid-run or, worse, measure the page cache: stop before any.
Status check_direct_io(const RunDir& run_dir, const TargetInfo& target,
                       const std::vector<std::string>& phases, int rank) {
  bool refused = false;
  Status s = probe_direct_io(run_dir.fd(), kDirectProbePrefix + std::to_string(rank), &refused);
  if (!s.ok()) return Status::Invalid("target " + target.path + ": O_DIRECT probe: " + s.message());
  if (!refused) return Status::Ok();
  std::string names, sets;
  for (const auto& n : phases) {
    names += (names.empty() ? "" : ", ") + n;
    sets += " --set phases." + n + ".direct=false";
  }
  return Status::Invalid("target " + target.path + " (" + target.fs_type + " from " + target.mount_source +
                         ") refuses O_DIRECT: open returned EINVAL; phase" +
                         (phases.size() == 1 ? " " : "s ") + names + (phases.size() == 1 ? " asks" : " ask") +
                         " for direct: true. Run buffered with" + sets +
                         " (the figures then include the page cache and are marked unverified), or use a "
                         "filesystem that takes O_DIRECT; nothing was measured");
}

// One rank's counters for every phase, as sent to the report's writer: the host (ranks on one host see
// the same devices, counted once) and per phase [device_seen, read, written, client_seen, read, written].
std::string counters_text(const std::vector<TargetCounters>& per_phase) {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  json phases = json::array();
  for (const auto& c : per_phase) {
    phases.push_back({c.device_seen, c.device_read_bytes, c.device_write_bytes, c.client_seen,
                      c.client_read_bytes, c.client_write_bytes});
  }
  return json_text(json{{"host", host}, {"phases", phases}});
}

// Sums what each host counted for phase i (the first rank of each host speaks for it); a host that
// could not count makes the sum unseen. Malformed texts are left out.
CountedBytes counted_for_phase(const std::vector<std::string>& texts, size_t i) {
  CountedBytes sum;
  sum.device_seen = sum.client_seen = true;
  std::vector<std::string> hosts;
  bool any = false;
  for (const auto& t : texts) {
    json j = json::parse(t, nullptr, false);
    if (!j.is_object() || !j.contains("host") || !j["host"].is_string() || !j.contains("phases") ||
        !j["phases"].is_array() || i >= j["phases"].size()) {
      continue;
    }
    const std::string host = j["host"].get<std::string>();
    if (std::find(hosts.begin(), hosts.end(), host) != hosts.end()) continue;
    const json& c = j["phases"][i];
    if (!c.is_array() || c.size() != 6 || !c[0].is_boolean() || !c[3].is_boolean() || !c[1].is_number() ||
        !c[2].is_number() || !c[4].is_number() || !c[5].is_number()) {
      continue;
    }
    hosts.push_back(host);
    any = true;
    sum.device_seen = sum.device_seen && c[0].get<bool>();
    sum.device_read += c[1].get<double>();
    sum.device_write += c[2].get<double>();
    sum.client_seen = sum.client_seen && c[3].get<bool>();
    sum.client_read += c[4].get<double>();
    sum.client_write += c[5].get<double>();
  }
  if (!any) sum.device_seen = sum.client_seen = false;
  return sum;
}

// The verification level of each phase that moved bytes through the target and ran to the end.
void verify_phases(const Suite& suite, const TargetInfo& target, const std::vector<std::string>& counters,
                   std::vector<PhaseReport>* phases) {
  std::string devices;
  for (const auto& d : target.devices) devices += (devices.empty() ? "" : ", ") + d;
  const TargetKind kind{target.fs_type, target.access, devices};
  for (size_t i = 0; i < phases->size() && i < suite.phases.size(); ++i) {
    PhaseReport& pr = (*phases)[i];
    const PhaseKind& k = *suite.phases[i].kind;
    if (pr.status != PhaseStatus::kPassed && pr.status != PhaseStatus::kFailed) continue;
    const bool reads = !k.target_read_bytes.empty();
    const std::string metric(reads ? k.target_read_bytes : k.target_write_bytes);
    if (metric.empty() || !pr.metrics.contains(metric) || !pr.metrics[metric].is_number()) continue;
    Verification v = judge_verification(reads ? "read" : "write", pr.metrics[metric].get<double>(),
                                        counted_for_phase(counters, i), kind);
    // Beside a phase of its group that moves bytes the same way, the counters hold both phases' bytes.
    for (size_t j = 0; suite.phases[i].group >= 0 && j < suite.phases.size(); ++j) {
      const PhaseKind& other = *suite.phases[j].kind;
      if (j == i || suite.phases[j].group != suite.phases[i].group) continue;
      if ((reads ? other.target_read_bytes : other.target_write_bytes).empty()) continue;
      v.level = kLevelUnverified;
      v.counted_bytes.reset();
      v.note = "unverified: it ran beside " + suite.phases[j].name + ", which also " + (reads ? "read" : "wrote") +
               " through the target, and the device counters hold both";
      break;
    }
    // Read from a folder of the user's (dataset_dir, from) on another mount: the target's counters
    // do not cover it.
    for (const char* key : {"dataset_dir", "from"}) {
      auto it = pr.params.find(key);
      if (!reads || it == pr.params.end() || !it->is_string() || it->get<std::string>().empty()) continue;
      TargetInfo there;
      if (describe_target(it->get<std::string>(), &there).ok() && there.mount_point == target.mount_point) {
        continue;
      }
      v.level = kLevelUnverified;
      v.counted_bytes.reset();
      v.note = std::string("unverified: read from ") + key + " " + it->get<std::string>() +
               ", not on the target's mount whose counters were read";
    }
    pr.verification = std::move(v);
  }
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

// text as one shell word: as it is when it holds only characters no shell treats specially, else in
// single quotes (a quote inside written '\'').
std::string shell_quoted(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                              "/._-+:=@%,") == std::string::npos) {
    return text;
  }
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// What this rank is about to run, for agree_same_run: every field a rank must share with the others.
RunIdentity run_identity(const RunOptions& opts, const Suite& suite, const Status& loaded,
                         const std::string& target_path) {
  RunIdentity id;
  const BuildInfo& bi = build_info();
  id.fields.emplace_back("iofab", std::string(bi.version) + " (" + bi.git_sha + ")");
  // The suite as it will run: after --set (and --scale), so the same file with other sets differs.
  id.fields.emplace_back(
      "suite", loaded.ok()
                   ? "sha256 " + sha256_hex(json_text(suite.document)).substr(0, 16) + " (after --set)"
                   : "one that does not load (" + loaded.message() + ")");
  id.fields.emplace_back("target", "\"" + target_path + "\"");
  id.fields.emplace_back("target kind", is_s3_target(target_path) ? "s3 (object store)" : "folder");
  char timeout[32];
  std::snprintf(timeout, sizeof timeout, "%.9g s", opts.rank_timeout_s);
  id.fields.emplace_back("--rank-timeout", timeout);
  id.fields.emplace_back("--keep", opts.keep ? "on" : "off");
  id.fields.emplace_back("--no-preflight", opts.no_preflight ? "on" : "off");
  for (const auto& f : opts.agreed) id.fields.push_back(f);
  return id;
}

}  // namespace

uint64_t preflight_margin(uint64_t planned) { return (64ULL << 20) + planned / 50; }

Status run_suite(Comm& comm, const RunOptions& opts, Report* report) {
  const auto run_start = std::chrono::steady_clock::now();
  const std::string started = rfc3339_utc_now();
  Suite suite;
  Status st = load_suite(opts.suite, opts.sets, &suite);
  const std::string target_path = opts.target ? *opts.target : suite.target ? *suite.target : kDefaultTarget;
  // First of all, loaded or not: ranks that run different suites, targets or options would make different
  // calls and wait for each other until the rank timeout. Refused here, naming who differs, before
  // anything is made.
  if (comm.size() > 1) {
    if (Status same = agree_same_run(comm, run_identity(opts, suite, st, target_path)); !same.ok())
      return same;
  }
  if (!st.ok()) return st;  // the same on every rank: the suite is the same
  TargetInfo target;
  // An s3:// target is a bucket and a prefix: its settings, credentials and a first listing are checked
  // here, as a folder's are, before anything is written.
  const bool on_s3 = is_s3_target(target_path);
  S3RunTarget s3;
  // What the suite may hold on this kind of target: bad input, refused before anything is written.
  if (Status fits = check_suite_for_target(suite, target_path, comm.size()); !fits.ok()) return fits;
  const Status mine = on_s3 ? prepare_s3_target(target_path, suite.s3, process_env(), &target, &s3)
                            : check_target(target_path, &target);
  st = agree_status(comm, mine);
  // A bucket that refuses the credentials, or an endpoint that refuses the connection, is a failure at
  // run time (exit 3), not bad input.
  if (!st.ok()) return mine.code() == Status::Code::kIoError ? Status::IoError(st.message()) : st;
  std::string preflight_note;

  // Free space first: the bytes the run will hold at its peak, plus a margin.
  // Without --keep a phase removes its files, except what it leaves for later phases.
  // Sums are checked: a total past 2^64 bytes would wrap to a small number and pass.
  uint64_t planned = 0, retained = 0, retained_at_peak = 0;
  std::string biggest;
  // A concurrent group is one step: its phases hold their bytes at the same time (and with --keep its solo
  // runs' too).
  for (size_t first = 0; first < suite.phases.size();) {
    const int gi = suite.phases[first].group;
    const size_t n = gi < 0 ? 1 : suite.groups[static_cast<size_t>(gi)].count;
    std::optional<uint64_t> b = 0, kept = 0;
    for (size_t k = first; k < first + n; ++k) {
      b = checked_add(b, suite.phases[k].phase->planned_bytes(comm.size()));
      kept = checked_add(kept, suite.phases[k].phase->retained_bytes(comm.size()));
    }
    if (gi >= 0 && opts.keep && suite.groups[static_cast<size_t>(gi)].solo) b = checked_add(b, b);
    const std::string& name = gi < 0 ? suite.phases[first].name : suite.groups[static_cast<size_t>(gi)].label;
    const std::optional<uint64_t> peak = checked_add(opts.keep ? planned : retained, b);
    const std::optional<uint64_t> left = checked_add(retained, kept);
    if (!peak || !left) {
      return Status::Invalid("phase " + name + ": the bytes it puts on the target on " +
                             std::to_string(comm.size()) + " rank" + (comm.size() == 1 ? "" : "s") +
                             (opts.keep ? ", with what earlier phases keep," : "") +
                             " exceed 2^64 bytes (its sizes x workers x ranks); make them smaller");
    }
    if (opts.keep) {
      planned = *peak;
    } else if (*peak > planned) {
      planned = *peak;
      retained_at_peak = retained;
      biggest = name;
    }
    retained = *left;
    first += n;
  }
  // A suite that writes nothing (a restore of another run's checkpoint) needs no free space.
  if (on_s3 && planned > 0) {
    preflight_note = "preflight: an object store has no free-space figure, so the " + std::to_string(planned) +
                     " bytes (" + units::format_bytes(static_cast<double>(planned)) +
                     ") the suite puts at its peak were not checked against one";
  } else if (!opts.no_preflight && planned > 0) {
    Status pre;
    const std::optional<uint64_t> need = checked_add(planned, preflight_margin(planned));
    if (!need || *need > target.free_bytes) {
      pre = Status::Invalid("preflight: target " + target.path + " has " + std::to_string(target.free_bytes) +
                            " bytes free (" + units::format_bytes(static_cast<double>(target.free_bytes)) +
                            "), the suite needs " + std::to_string(planned) + " bytes (" +
                            units::format_bytes(static_cast<double>(planned)) + ")" +
                            (opts.keep ? " with --keep" : " for phase " + biggest) +
                            (retained_at_peak > 0 ? " (with " + std::to_string(retained_at_peak) +
                                                        " bytes that earlier phases leave for later ones)"
                                                  : "") +
                            " plus a margin of " +
                            units::format_bytes(static_cast<double>(preflight_margin(planned))) +
                            "; nothing was written");
    }
    st = agree_status(comm, pre);
    if (!st.ok()) return st;
  }

  // Before the run folder exists: a Ctrl-C from here on stops the run and removes what it made (the
  // folder, its lock, the O_DIRECT probe) instead of killing the process with them left behind.
  install_stop_handlers();
  std::string run_id = comm.rank() == 0 ? new_run_id() : "";
  if (Status b = comm.broadcast(&run_id, 0); !b.ok()) return b;
  RunDir run_dir;
  std::unique_ptr<Store> run_store;
  Status made;
  if (on_s3) {
    // Keys under <prefix>/iofab-<run id>/ only: a prefix needs no making, and no other run's keys start so.
    made = open_s3_run_store(s3, run_id, &run_store);
    // Kept from the start, as a folder is: `iofab clean` leaves the run's keys then.
    if (made.ok() && opts.keep && comm.rank() == 0) made = mark_store_kept(*run_store);
  } else {
    made = comm.rank() == 0 ? run_dir.open(target.path, run_id, true) : Status::Ok();
    made.update(comm.barrier());  // the others open the folder once rank 0 has made it
    if (comm.rank() != 0 && made.ok()) made = run_dir.open(target.path, run_id, false);
    // Kept from the start: `iofab clean` leaves a --keep run's folder (restore's `from` may read it), even
    // one whose run was killed.
    if (made.ok() && opts.keep) made = run_dir.mark_kept();
    if (made.ok()) made = posix_store_at(run_dir.fd(), run_dir.path(), &run_store);
  }
  st = agree_status(comm, made);
  if (!st.ok()) return Status::Invalid("run folder: " + st.message());
  if (Status same = agree_on_target(comm, run_dir, target.path, suite.target_scope); !same.ok()) return same;
  const std::string run_location = on_s3 ? run_store->location() : run_dir.path();
  if (const std::vector<std::string> direct = direct_phase_names(suite); !direct.empty()) {
    st = agree_status(comm, check_direct_io(run_dir, target, direct, comm.rank()));
    if (!st.ok()) {
      // Nothing was measured: leave the target as it was; the refusal is what the user needs to read.
      if (Status rm = run_dir.remove(); !rm.ok()) {
        return Status::Invalid(st.message() + "; cleanup: " + rm.message());
      }
      return st;
    }
  }

  // Described once, now: it asks the CUDA runtime for devices, which can take long on a loaded
  // node, and after a stop signal the launcher leaves about a second to get the report out.
  const std::string this_host = json_text(describe_host());
  std::vector<std::string> start_hosts;  // every rank's host, known to every rank before any loss
  if (!share_rank_hosts(comm, this_host, &start_hosts).ok()) start_hosts = {this_host};
  // One telemetry sampler per host: the host's first rank runs it during every phase.
  LocalRank local;
  const bool samples_host =
      suite.telemetry_interval_s > 0 && (find_local_rank(comm, &local).ok() ? local.rank == 0 : comm.rank() == 0);
  std::vector<nlohmann::json> telemetry(suite.phases.size());
  std::atomic<bool>& stop = stop_flag();
  comm.set_stop_flag(&stop, kStopGraceSeconds);
  comm.set_rank_timeout(opts.rank_timeout_s);

  // What every report carries besides its phases; the emergency report below needs it too.
  auto fill_header = [&](Report* r, const std::vector<std::string>& hosts, const std::vector<int>& lost) {
    const BuildInfo& bi = build_info();
    r->tool = {{"name", "iofab"},
               {"version", bi.version},
               {"git_sha", bi.git_sha},
               {"compiler", bi.compiler},
               {"build_type", bi.build_type},
               {"backends", bi.backends}};
    const ClusterHosts cluster = cluster_hosts(hosts);
    r->cluster = {{"ranks", comm.size()}, {"comm", comm.name()}, {"comm_reason", opts.comm_reason},
                  {"hosts", cluster.hosts},  {"rank_hosts", cluster.rank_hosts}, {"lost_ranks", lost},
                  {"report_rank", comm.rank()}};
    r->cluster["lost_hosts"] = lost_hosts(cluster.rank_hosts, lost);
    r->cluster["launch"] = launch_json(cluster.rank_hosts);
    r->target = to_json(target);
    r->target["run_folder"] = run_location;
    r->target["kept"] = opts.keep;
    r->target["scope"] = target_scope_name(suite.target_scope);
    r->run = {{"id", run_id},
              {"start_time", started},
              {"duration_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count()},
              {"command_line", opts.command_line},
              {"suite", {{"name", suite.name},
                         {"source", suite.source},
                         {"sha256", suite.sha256},
                         {"sets", opts.sets},
                         {"document", suite.document}}}};
  };

  report->phases.clear();
  // What the target's devices (or NFS client) moved during each phase, on this rank's host.
  std::vector<TargetCounters> counted(suite.phases.size());
  std::string comm_failure;
  // A wait given up after a stop signal on ranks that are alive as far as this rank knows.
  auto stopping_only = [&] { return comm.failed() && stop.load() && comm.gone_ranks().empty(); };
  // The phases so far and the one running, for the emergency report (another thread).
  std::mutex report_mu;
  std::string running_name, running_kind;
  std::unique_ptr<StopWatchdog> watchdog;
  // The report as it stands now, for when the run cannot get back to writing the real one: the
  // phases so far, the running one (if any) cut short, this host only.
  auto partial_report = [&](const std::vector<int>& lost, PhaseStatus cut_status, const std::string& cut_reason,
                            const std::string& warning) {
    Report r;
    PhaseReport cur;
    {
      std::lock_guard<std::mutex> lock(report_mu);
      r.phases = report->phases;
      cur.name = running_name;
      cur.kind = running_kind;
    }
    if (!cur.name.empty()) {
      cur.status = cut_status;
      cur.reason = cut_reason;
      r.phases.push_back(std::move(cur));
    }
    fill_header(&r, start_hosts, lost);
    r.warnings.push_back(warning);
    finalize_verdict(&r);
    return r;
  };
  auto leave_fallback = [&] {
    if (!opts.on_fallback_report || comm.rank() != comm.report_rank()) return;
    opts.on_fallback_report(partial_report(
        comm.lost_ranks(), PhaseStatus::kInterrupted,
        "cut short: the report writer's process ended during this phase (killed by the launcher or a signal) "
        "before the run could report; this phase's figures are lost",
        "written by the report courier: the report writer's process ended before it wrote the report, so "
        "this is the report as it stood then; later phases and other ranks' figures are missing"));
  };
  if (comm.size() > 1 && comm.rank() == 0 && opts.on_report_ready) {
    watchdog = std::make_unique<StopWatchdog>(stop, stop_wake_fd(), kStopGraceSeconds + kEmergencyAfterGraceSeconds, [&] {
      const std::vector<int> gone = comm.ranks_gone_here();
      std::string ranks;
      for (int g : gone) ranks += (ranks.empty() ? "" : ", ") + std::to_string(g);
      const std::string reason =
          gone.empty() ? "interrupted by signal " + std::to_string(stop_signal()) +
                             " inside a data-plane call that did not return in time"
                       : "lost rank" + std::string(gone.size() == 1 ? " " : "s ") + ranks +
                             " (process exited) inside a blocking data-plane call; the launcher is ending the job";
      opts.on_report_ready(partial_report(
          gone, gone.empty() ? PhaseStatus::kInterrupted : PhaseStatus::kError, reason,
          "written by the stop watchdog: the run did not get back to writing its report in time, so later "
          "phases and other ranks' figures are missing"));
    });
  }
  // A phase's report before it runs: its names, params, units and headline.
  auto report_skeleton = [](const PhaseSpec& spec) {
    PhaseReport pr;
    pr.name = spec.name;
    pr.kind = std::string(spec.kind->name);
    pr.params = spec.params;
    json units_map = json::object();
    json better_map = json::object();
    json headline = json::array();
    for (const auto& m : spec.kind->metrics()) {
      units_map[m.name] = unit_name(m.unit);
      better_map[m.name] = better_name(m.better);
      if (headline.size() < 4 && m.name.find('*') == std::string::npos) headline.push_back(m.name);
    }
    if (!spec.headline.empty()) headline = spec.headline;
    pr.details["units"] = units_map;
    pr.details["better"] = better_map;
    pr.details["headline"] = headline;
    return pr;
  };
  // A phase's status from how its run ended (on c, the Comm it ran on), then its figures and checks.
  auto settle = [&](const PhaseSpec& spec, Comm& c, const Status& ps, PhaseResult& result, PhaseReport& pr) {
    const bool stopping = c.failed() && stop.load() && c.gone_ranks().empty();
    if (!result.skip_reason.empty()) {
      pr.status = PhaseStatus::kSkipped;
      pr.reason = result.skip_reason;
    } else if (c.failed()) {
      // A rank whose process is gone is an error, even when the launcher's stop signal is how
      // we noticed; ranks that only went silent after a stop signal were being stopped too.
      const std::string why = ps.ok() ? "lost contact with other ranks" : ps.message();
      if (comm_failure.empty() || &c == &comm) comm_failure = why;
      pr.status = stopping ? PhaseStatus::kInterrupted : PhaseStatus::kError;
      pr.reason = stopping ? "interrupted by signal " + std::to_string(stop_signal()) + "; " + why : why;
    } else if (ps.code() == Status::Code::kInterrupted || (stop.load() && !ps.ok())) {
      pr.status = PhaseStatus::kInterrupted;
      pr.reason = "interrupted by signal " + std::to_string(stop_signal());
    } else if (!ps.ok()) {
      pr.status = PhaseStatus::kError;
      pr.reason = ps.message();
    } else if (!result.failure.empty()) {
      pr.status = PhaseStatus::kFailed;
      pr.reason = result.failure;
    }
    for (const auto& [k, v] : result.metrics) pr.metrics[k] = v;
    json keep_maps = {{"units", pr.details["units"]}, {"better", pr.details["better"]}, {"headline", pr.details["headline"]}};
    const json concurrent = pr.details.value("concurrent", json());
    pr.details = std::move(result.details);
    for (const auto& [k, v] : keep_maps.items()) pr.details[k] = v;
    if (!concurrent.is_null()) pr.details["concurrent"] = concurrent;
    for (auto& w : result.warnings) pr.warnings.push_back(std::move(w));
    for (const auto& ch : spec.checks) {
      CheckResult cr;
      cr.name = ch.name;
      cr.metric = ch.metric;
      cr.op = check_op_text(ch.op);
      cr.threshold = ch.threshold;
      cr.threshold_text = ch.threshold_text;
      // A measured metric is reported even when the phase did not pass (a restore's corrupt_shards is
      // the point of its check); the check passes only when the phase did.
      auto it = pr.metrics.find(ch.metric);
      const bool measured = it != pr.metrics.end() && it->is_number() && std::isfinite(it->get<double>());
      cr.has_value = measured;
      cr.value = measured ? it->get<double>() : 0;
      cr.passed = measured && pr.status == PhaseStatus::kPassed && check_passes(ch.op, cr.value, ch.threshold);
      pr.checks.push_back(std::move(cr));
    }
  };
  for (size_t first = 0; first < suite.phases.size();) {
    const int gi = suite.phases[first].group;
    const size_t n = gi < 0 ? 1 : suite.groups[static_cast<size_t>(gi)].count;
    const std::string label = gi < 0 ? suite.phases[first].name : suite.groups[static_cast<size_t>(gi)].label;
    std::vector<PhaseReport> prs;
    for (size_t k = first; k < first + n; ++k) prs.push_back(report_skeleton(suite.phases[k]));
    const bool stopped = comm.failed() || any_rank_stopped(comm, stop);
    if (comm.failed() && comm_failure.empty()) {
      // Lost between phases (the agreement to start this one): say who, not an empty reason.
      comm_failure = who_failed(comm) + " before this phase could start";
    }
    if (stopped) {
      std::lock_guard<std::mutex> lock(report_mu);
      for (auto& pr : prs) {
        pr.status = comm.failed() && !stopping_only() ? PhaseStatus::kError : PhaseStatus::kInterrupted;
        pr.reason = comm.failed() ? "not started: " + comm_failure : "not started: the run was interrupted";
        report->phases.push_back(std::move(pr));
      }
      first += n;
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(report_mu);
      running_name = label;
      running_kind = gi < 0 ? std::string(suite.phases[first].kind->name) : "concurrent";
    }
    leave_fallback();
    std::vector<MemberOutcome> outcomes(n);
    std::optional<GroupRun> group;
    if (gi >= 0) {
      group.emplace(GroupRun{comm, suite.groups[static_cast<size_t>(gi)], suite.phases, run_location, target, stop,
                             run_store.get(), opts.keep, comm.rank() == 0 && !opts.quiet});
      run_group_solo(*group, &outcomes);
    }
    // Telemetry covers the phases' time together (a group's, not its solo runs); the target's counters
    // what they measure (a group's from when every phase is set up: a loader's dataset generation is
    // not the checkpoint's writes).
    TargetCounters counted_before = sample_target_counters(target);
    TelemetrySampler sampler({.interval_s = suite.telemetry_interval_s, .devices = target.devices});
    if (samples_host) sampler.start();
    if (group) {
      run_group_together(*group, &outcomes, [&] { counted_before = sample_target_counters(target); });
    } else {
      PhaseSpec& spec = suite.phases[first];
      MemberOutcome& m = outcomes[0];
      PhaseContext ctx{comm, run_location, target, stop, m.progress, spec.name, opts.keep};
      ctx.store = run_store.get();
      const auto t0 = std::chrono::steady_clock::now();
      {
        ProgressLine line(spec.name, m.progress, comm.rank() == 0 && !opts.quiet);
        m.status = spec.phase->run(ctx, &m.result);
      }
      m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    nlohmann::json sampled_here;
    if (samples_host) {
      sampler.stop();
      sampled_here = telemetry_json(sampler, suite.telemetry_interval_s);
      sampled_here["host"] = local.host.empty() ? "unknown" : local.host;
    }
    const TargetCounters counted_here = sample_target_counters(target) - counted_before;
    for (size_t k = 0; k < n; ++k) {
      const PhaseSpec& spec = suite.phases[first + k];
      MemberOutcome& m = outcomes[k];
      PhaseReport& pr = prs[k];
      telemetry[first + k] = sampled_here;
      counted[first + k] = counted_here;
      pr.seconds = m.seconds;
      if (group) add_group_figures(*group, k, m, &pr);
      settle(spec, m.comm ? *m.comm : comm, m.status, m.result, pr);
    }
    {
      std::lock_guard<std::mutex> lock(report_mu);
      for (auto& pr : prs) report->phases.push_back(std::move(pr));
      running_name.clear();
    }
    leave_fallback();
    first += n;
  }

  std::vector<std::string> hosts;
  std::vector<std::string> counters;
  if (!gather_to_root(comm, this_host, &hosts).ok()) {
    hosts = start_hosts;
  } else if (!gather_to_root(comm, counters_text(counted), &counters).ok()) {
    counters.clear();
  }
  if (counters.empty()) counters = {counters_text(counted)};
  std::vector<std::string> sampled;
  if (!gather_to_root(comm, nlohmann::json(telemetry).dump(), &sampled).ok()) {
    sampled = {nlohmann::json(telemetry).dump()};
  }
  if (comm.rank() != comm.report_rank()) {
    // The writer removes the same folder and reports its own failure; this rank's could no longer
    // reach the report, which is on its way.
    if (!opts.keep && !on_s3) run_dir.remove().ignore_error();
    // After a loss the caller waits for the writer's word before leaving (Comm::await_release); a
    // barrier that fails has lost a rank, which the report names.
    comm.barrier().ignore_error();
    return Status::Ok();
  }

  fill_header(report, hosts, comm.lost_ranks());
  if (comm.failed()) {
    // Lost after the last phase (gathering the report's parts): no phase said who, so say it here.
    if (comm_failure.empty()) {
      comm_failure = who_failed(comm) + " after the last phase, while gathering the report's parts";
    }
    report->warnings.push_back(comm_failure);
  }
  if (!preflight_note.empty()) report->warnings.push_back(preflight_note);
  attach_telemetry(sampled, suite.telemetry_interval_s, &report->phases);
  verify_phases(suite, target, counters, &report->phases);
  // Joins across phases, declared by the phase kinds in the suite (each kind once).
  std::vector<const PhaseKind*> kinds;
  for (const auto& spec : suite.phases) {
    if (std::find(kinds.begin(), kinds.end(), spec.kind) == kinds.end()) kinds.push_back(spec.kind);
  }
  for (const PhaseKind* k : kinds) {
    if (k->after_all != nullptr) k->after_all(&report->phases);
  }
  finalize_verdict(report);
  // The report goes out before the cleanup: removing big files can take long, and a launcher
  // that lost a rank kills the survivors about a second after asking them to stop.
  if (watchdog) watchdog->disarm();  // from here on this thread writes the report
  if (opts.on_report_ready) opts.on_report_ready(*report);

  // On S3 the writer alone lists and deletes the run's keys (every rank doing it would race).
  Status removed = opts.keep ? Status::Ok() : on_s3 ? run_store->remove_tree("") : run_dir.remove();
  // Holds every rank until the folder is gone; a rank lost by now is already named in the report.
  comm.barrier().ignore_error();
  TargetInfo after = target;
  // A figure from before the run must never pass for the free space after it.
  if (on_s3) {
    // No free-space figure to report after the run either.
  } else if (Status described = describe_target(target.path, &after); described.ok()) {
    report->target["free_bytes_after"] = after.free_bytes;
  } else {
    report->warnings.push_back("free space after the run not measured: " + described.message());
  }
  if (!removed.ok()) {
    // What is left, and the command that removes it, in the report and (cmd_run) on the console.
    std::string command = "iofab clean --yes --target " + shell_quoted(target.path);
    // clean reaches an object store with the suite's s3 settings (endpoint, addressing, credentials).
    if (on_s3) command += " --suite " + shell_quoted(opts.suite);
    report->warnings.push_back("cleanup: " + removed.message() + "; " + run_location +
                               " is left behind: remove the rest with " + command);
    report->target["left_behind"] = {
        {"location", run_location}, {"error", removed.message()}, {"clean_command", command}};
  }
  return Status::Ok();
}

}  // namespace iofab
