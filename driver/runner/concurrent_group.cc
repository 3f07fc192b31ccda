#include "driver/runner/concurrent_group.h"

#include <chrono>
#include <cmath>
#include <thread>

#include "driver/runner/progress_line.h"
#include "driver/suite/phase_groups.h"

namespace iofab {

using nlohmann::json;

namespace {

// The folder (and the phase name) of a phase's solo run: '.' is never in a suite's phase name.
std::string solo_name(const std::string& name) { return name + std::string(kSoloSuffix); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A solo run that did not pass leaves its phase no better: the figures beside the others are half of what
// the phase measures (the other half, alone, is missing), so a passed verdict would hide the failure.
void fold_solo_outcome(MemberOutcome* m) {
  if (!m->solo_ran) return;
  if (!m->solo_status.ok() && m->solo_status.code() != Status::Code::kInterrupted) {
    if (m->status.ok()) {
      m->status = Status::FromCode(m->solo_status.code(), "alone (solo run): " + m->solo_status.message());
    }
  } else if (m->solo_status.ok() && !m->solo_result.failure.empty() && m->result.failure.empty()) {
    m->result.failure = "alone (solo run): " + m->solo_result.failure;
  }
}

}  // namespace

void run_group_solo(const GroupRun& g, std::vector<MemberOutcome>* out) {
  if (!g.group.solo) return;
  for (size_t k = 0; k < g.group.count && !g.stop.load(); ++k) {
    PhaseSpec& spec = g.phases[g.group.first + k];
    MemberOutcome& m = (*out)[k];
    PhaseContext ctx{g.comm, g.run_location, g.target, g.stop, m.progress, solo_name(spec.name), g.keep};
    ctx.store = g.store;
    const auto t0 = std::chrono::steady_clock::now();
    {
      ProgressLine line(spec.name + " (alone)", m.progress, g.show_progress);
      m.solo_status = spec.phase->run(ctx, &m.solo_result);
    }
    m.solo_seconds = seconds_since(t0);
    m.solo_ran = true;
    m.progress.done_bytes = 0;
    m.progress.total_bytes = 0;
    // What the phase leaves for later phases belongs to its run in the group, not to this one.
    Status synced = g.comm.barrier();
    if (!g.keep && synced.ok() && g.comm.rank() == 0 && g.store != nullptr) {
      if (Status rm = g.store->remove_tree(solo_name(spec.name)); !rm.ok()) {
        m.solo_result.warnings.push_back("removing the solo run's folder: " + rm.message());
      }
    }
  }
}

void run_group_together(const GroupRun& g, std::vector<MemberOutcome>* out, const std::function<void()>& on_start) {
  // Collective, in the same order on every rank, from this thread.
  Status made;
  for (auto& m : *out) {
    if (made.ok()) made = g.comm.duplicate(&m.comm);
    if (!made.ok()) m.status = Status::Unavailable("could not run beside the group's other phases: " + made.message());
  }
  if (!made.ok()) {
    for (auto& m : *out) fold_solo_outcome(&m);
    return;
  }

  int publishers = 0;
  for (size_t k = 0; k < g.group.count; ++k) publishers += g.phases[g.group.first + k].kind->publishes_windows ? 1 : 0;
  GroupWindows windows(publishers, g.group.count);
  std::atomic<bool> clock_done{false};
  std::vector<std::thread> threads;
  threads.reserve(g.group.count);
  for (size_t k = 0; k < g.group.count; ++k) {
    threads.emplace_back([&, k] {
      const size_t i = g.group.first + k;
      PhaseSpec& spec = g.phases[i];
      MemberOutcome& m = (*out)[k];
      PhaseContext ctx{*m.comm, g.run_location, g.target, g.stop, m.progress, spec.name, g.keep};
      ctx.store = g.store;
      ctx.windows = &windows;
      ctx.ready_to_start = [&windows, &g, k] {
        windows.arrive(k);
        windows.wait_start(g.stop);
      };
      if (!spec.kind->sets_up_first) windows.arrive(k);
      const bool is_clock = static_cast<int>(i) == g.group.clock;
      if (g.group.clock >= 0 && !is_clock) ctx.until = &clock_done;
      const auto t0 = std::chrono::steady_clock::now();
      m.status = spec.phase->run(ctx, &m.result);
      m.seconds = seconds_since(t0);
      windows.arrive(k);  // one that ended before it was set up must not hold the others at the gate
      if (is_clock) clock_done = true;
      if (spec.kind->publishes_windows) windows.publisher_done();
    });
  }
  {
    // The console follows the clock, or the first phase.
    const size_t shown = g.group.clock >= 0 ? static_cast<size_t>(g.group.clock) - g.group.first : 0;
    ProgressLine line(g.group.label, (*out)[shown].progress, g.show_progress);
    windows.wait_start(g.stop);
    if (on_start) on_start();
    for (auto& t : threads) t.join();
  }
  for (auto& m : *out) fold_solo_outcome(&m);
}

void add_group_figures(const GroupRun& g, size_t member, const MemberOutcome& m, PhaseReport* pr) {
  const PhaseSpec& spec = g.phases[g.group.first + member];
  json names = json::array();
  for (size_t k = 0; k < g.group.count; ++k) names.push_back(g.phases[g.group.first + k].name);
  json d = {{"group", g.group.label},
            {"phases", names},
            {"clock", g.group.clock >= 0 ? json(g.phases[static_cast<size_t>(g.group.clock)].name) : json(nullptr)},
            {"follows_clock", g.group.clock >= 0 && static_cast<int>(g.group.first + member) != g.group.clock}};
  if (!m.solo_ran) {
    d["solo"] = {{"ran", false}, {"reason", g.group.solo ? "the run stopped before it" : "solo: false"}};
    pr->details["concurrent"] = std::move(d);
    return;
  }
  const bool solo_ok = m.solo_status.ok() && m.solo_result.skip_reason.empty() && m.solo_result.failure.empty();
  json solo = {{"ran", true}, {"seconds", m.solo_seconds}, {"passed", solo_ok}};
  if (!solo_ok) {
    solo["reason"] = !m.solo_status.ok()              ? m.solo_status.message()
                     : !m.solo_result.skip_reason.empty() ? "skipped: " + m.solo_result.skip_reason
                                                          : m.solo_result.failure;
    pr->warnings.push_back("alone (solo run) it did not pass, so no _solo figures: " + solo["reason"].get<std::string>());
  }
  json metrics = json::object();
  for (std::string_view name : spec.kind->solo_metrics) {
    const std::string n(name);
    const auto alone = m.solo_result.metrics.find(n);
    if (alone == m.solo_result.metrics.end() || !std::isfinite(alone->second)) continue;
    metrics[n] = alone->second;
    if (!solo_ok) continue;
    pr->metrics[n + "_solo"] = alone->second;
    const auto together = m.result.metrics.find(n);
    if (together != m.result.metrics.end() && std::isfinite(together->second) && alone->second != 0) {
      pr->metrics[n + "_vs_solo"] = together->second / alone->second;
    }
  }
  solo["metrics"] = std::move(metrics);
  d["solo"] = std::move(solo);
  pr->details["concurrent"] = std::move(d);
}

}  // namespace iofab
