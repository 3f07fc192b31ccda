#include "reports/report_plots.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "harness/stats/histogram.h"
#include "harness/stats/time_series.h"
#include "reports/svg_plot.h"
#include "workloads/phase_table.h"

namespace iofab {

using nlohmann::json;

namespace {

constexpr size_t kMaxSeriesPoints = 400;
constexpr size_t kMaxCheckpoints = 60;
constexpr int kNeutralColor = 7;  // grey, for a line every system shares

const double kNaN = std::nan("");

const json& get(const json& j, const char* key) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

std::optional<double> number(const json& j) {
  if (!j.is_number()) return std::nullopt;
  const double v = j.get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

// Each system's phase of one name, in report order; nullptr where a report has none.
using Phases = std::vector<const PhaseReport*>;

Phases phases_named(const std::vector<SystemReport>& systems, const std::string& name) {
  Phases out;
  for (const auto& s : systems) out.push_back(find_phase(s.loaded.report, name));
  return out;
}

// Whether the phase's kind draws plot (its row's plots); a kind this build does not know draws none.
bool draws(const PhaseReport& p, PhasePlot plot) {
  const PhaseKind* kind = find_phase_kind(p.kind);
  return kind != nullptr && std::find(kind->plots.begin(), kind->plots.end(), plot) != kind->plots.end();
}

bool any_draws(const Phases& phases, PhasePlot plot) {
  return std::any_of(phases.begin(), phases.end(),
                     [&](const PhaseReport* p) { return p != nullptr && draws(*p, plot); });
}

// A metric of a system's phase; nullopt where the phase or the figure is missing.
std::optional<double> value_in(const PhaseReport* p, const std::string& metric) {
  return p != nullptr ? metric_value(*p, metric) : std::nullopt;
}

// --- what every plot shares ---------------------------------------------------

// When a section says "No data: ...": when it drew no chart, or only when it drew none and noted nothing.
enum class NoData { kUnlessDrawn, kUnlessShown };

// A line chart with its words and axes; lines to be added.
LineChart line_chart(std::string title, PlotAxis x, PlotAxis y) {
  LineChart c;
  c.title = std::move(title);
  c.x = std::move(x);
  c.y = std::move(y);
  return c;
}

// A plot section in the making: its words, the walk over the reports' phases, charts with a series or
// a line per system, and notes on what was left out. Each plot is its data and these calls.
class Section {
 public:
  Section(const std::vector<SystemReport>& systems, std::string id, std::string heading,
          std::string explanation)
      : systems_(systems) {
    section_.id = std::move(id);
    section_.heading = std::move(heading);
    section_.explanation = std::move(explanation);
  }

  // draw(name, phases) for each phase name in the reports, in first-seen order.
  template <typename Draw>
  void each_phase(Draw&& draw) const {
    for (const auto& name : phase_names(systems_)) draw(name, phases_named(systems_, name));
  }
  // The same, for the names that are a phase whose kind draws plot in at least one report.
  template <typename Draw>
  void each_phase_drawing(PhasePlot plot, Draw&& draw) const {
    each_phase([&](const std::string& name, const Phases& phases) {
      if (any_draws(phases, plot)) draw(name, phases);
    });
  }

  // A bar chart with a series per system (values to be filled per system, one per category).
  BarChart bars_per_system(std::string title, PlotAxis y) const {
    BarChart c;
    c.title = std::move(title);
    c.y = std::move(y);
    for (const auto& sys : systems_) c.series.push_back(sys.label);
    c.values.resize(systems_.size());
    return c;
  }
  // System i's line in a line chart: its label and colour; points to be added.
  LineSeries line_for(size_t i) const {
    LineSeries ls;
    ls.name = systems_[i].label;
    ls.color = static_cast<int>(i);
    return ls;
  }

  // A chart with nothing to show (no category, no line) is left out.
  void draw(const BarChart& c) {
    if (!c.categories.empty()) section_.svgs.push_back(render_svg(c));
  }
  void draw(const LineChart& c) {
    if (!c.series.empty()) section_.svgs.push_back(render_svg(c));
  }
  void note(std::string text) { section_.notes.push_back(std::move(text)); }
  // "<system>, <phase>: <what>"
  void note(size_t system, const std::string& phase, const std::string& what) {
    note(systems_[system].label + ", " + phase + ": " + what);
  }

  // The section, ending with "No data: <what>" when `when` says nothing came of it.
  PlotSection done(NoData when, const std::string& what) {
    if (section_.svgs.empty() && (when == NoData::kUnlessDrawn || section_.notes.empty())) {
      note("No data: " + what);
    }
    return std::move(section_);
  }

 private:
  const std::vector<SystemReport>& systems_;
  PlotSection section_;
};

// --- bandwidth per phase ---------------------------------------------------

// The phase's headline bandwidth: the first headline metric in bytes/s, else the first bytes/s metric.
std::string bandwidth_metric(const std::vector<const PhaseReport*>& phases) {
  for (const PhaseReport* p : phases) {
    if (p == nullptr) continue;
    const json& h = get(p->details, "headline");
    if (!h.is_array()) continue;
    for (const auto& n : h) {
      if (n.is_string() && metric_unit(*p, n.get<std::string>()) == "bytes/s" &&
          metric_value(*p, n.get<std::string>())) {
        return n.get<std::string>();
      }
    }
  }
  // Without a headline: an aggregate figure (*bytes_per_s, *.max) before one point of a sweep.
  const auto ends = [](const std::string& m, std::string_view suffix) {
    return m.size() >= suffix.size() && m.compare(m.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  const auto names = ordered_metric_names(phases);
  for (int pass = 0; pass < 3; ++pass) {
    for (const auto& m : names) {
      if ((pass == 0 && !ends(m, "bytes_per_s")) || (pass == 1 && !ends(m, ".max"))) continue;
      for (const PhaseReport* p : phases) {
        if (p != nullptr && metric_unit(*p, m) == "bytes/s" && metric_value(*p, m)) return m;
      }
    }
  }
  return "";
}

PlotSection bandwidth_per_phase(const std::vector<SystemReport>& systems) {
  Section s(systems, "plot-bandwidth", "Bandwidth per phase",
            "Each phase's headline bandwidth (the first bytes/s figure it reports), per system.");
  BarChart c = s.bars_per_system("Bandwidth per phase", {"bandwidth", "bytes/s", false});
  s.each_phase([&](const std::string& name, const Phases& phases) {
    const std::string m = bandwidth_metric(phases);
    if (m.empty()) return;
    c.categories.push_back(name + "\n" + m);
    for (size_t i = 0; i < phases.size(); ++i) c.values[i].push_back(value_in(phases[i], m).value_or(kNaN));
  });
  s.draw(c);
  return s.done(NoData::kUnlessDrawn, "no phase in any report has a bandwidth (bytes/s) metric.");
}

// --- train_read latency CDF --------------------------------------------------

std::vector<double> quantile_grid() {
  std::vector<double> q;
  for (int i = 0; i < 200; ++i) q.push_back(i / 200.0);
  for (double t : {0.995, 0.999, 0.9995, 0.9999, 1.0}) q.push_back(t);
  return q;
}

const json* latency_histogram(const PhaseReport& p) {
  for (const char* key : {"sample_latency_histogram", "latency_histogram"}) {
    if (get(p.details, key).is_object()) return &get(p.details, key);
  }
  return nullptr;
}

PlotSection latency_cdfs(const std::vector<SystemReport>& systems) {
  Section s(systems, "plot-latency-cdf", "Training-read latency",
            "Cumulative distribution of per-sample read latency in the train_read phase (log scale): the "
            "further left and the steeper, the better; the top of the curve is the tail.");
  s.each_phase_drawing(PhasePlot::kLatencyCdf, [&](const std::string& name, const Phases& phases) {
    LineChart c = line_chart("Sample read latency CDF: " + name, {"sample read latency", "s", true},
                             {"fraction of samples", "fraction", false});
    c.markers = false;
    for (size_t i = 0; i < phases.size(); ++i) {
      if (phases[i] == nullptr) continue;
      const json* hj = latency_histogram(*phases[i]);
      Histogram h;
      if (hj == nullptr) {
        s.note(i, name, "no latency histogram in details");
      } else if (!h.from_json(*hj)) {
        s.note(i, name, "the latency histogram is malformed, left out");
      } else if (h.count() == 0) {
        s.note(i, name, "no samples were read");
      } else {
        LineSeries ls = s.line_for(i);
        for (double q : quantile_grid())
          ls.points.emplace_back(static_cast<double>(h.percentile(q)) * 1e-9, q);
        c.series.push_back(std::move(ls));
      }
    }
    s.draw(c);
  });
  return s.done(NoData::kUnlessShown, "no report has a train_read phase.");
}

// --- checkpoint stall vs allowed stall -------------------------------------

// Equal allowed stalls (the same suite) draw one grey line; different ones a line per system.
void add_allowed_lines(const std::vector<SystemReport>& systems, const std::vector<double>& allowed,
                       const std::string& what, std::vector<RefLine>* out) {
  std::set<double> distinct;
  for (double a : allowed) {
    if (std::isfinite(a) && a > 0) distinct.insert(a);
  }
  if (distinct.size() == 1) {
    out->push_back({what, *distinct.begin(), kNeutralColor});
    return;
  }
  for (size_t i = 0; i < allowed.size(); ++i) {
    if (std::isfinite(allowed[i]) && allowed[i] > 0) {
      out->push_back({what + " (" + systems[i].label + ")", allowed[i], static_cast<int>(i)});
    }
  }
}

// Each checkpoint's stall (projected to full size where the run projected it); fills *allowed from the
// checkpoints' budgets when the phase has no allowed_stall_seconds.
std::vector<double> stalls_per_checkpoint(const PhaseReport& p, double* allowed) {
  std::vector<double> out;
  const json& cps = get(p.details, "checkpoints");
  if (!cps.is_array()) return out;
  for (const auto& cp : cps) {
    const json& budget = get(cp, "budget");
    auto v = number(get(budget, "projected_seconds"));
    if (!v) v = number(get(cp, "stall_seconds"));
    out.push_back(v.value_or(kNaN));
    if (!std::isfinite(*allowed)) *allowed = number(get(budget, "allowed_seconds")).value_or(kNaN);
  }
  return out;
}

// Each checkpoint's stall as a category per system (the first kMaxCheckpoints); false when no report has
// per-checkpoint details.
bool per_checkpoint_bars(Section& s, const std::string& name, const Phases& phases,
                         const std::vector<std::vector<double>>& per_cp, BarChart* c) {
  size_t n = 0;
  for (const auto& v : per_cp) n = std::max(n, v.size());
  if (n == 0) return false;
  if (n > kMaxCheckpoints) {
    s.note(name + ": the first " + std::to_string(kMaxCheckpoints) + " of " + std::to_string(n) +
           " checkpoints are shown");
    n = kMaxCheckpoints;
  }
  for (size_t k = 0; k < n; ++k) c->categories.push_back("#" + std::to_string(k + 1));
  for (size_t i = 0; i < per_cp.size(); ++i) {
    for (size_t k = 0; k < n; ++k) c->values[i].push_back(k < per_cp[i].size() ? per_cp[i][k] : kNaN);
    if (phases[i] != nullptr && per_cp[i].empty()) s.note(i, name, "no per-checkpoint details");
  }
  return true;
}

// Reports without per-checkpoint details still carry the worst and mean stalls; false when none does.
bool summary_stall_bars(Section& s, const std::string& name, const Phases& phases, BarChart* c) {
  c->categories = {"longest stall\n(projected, full size)", "longest stall\n(as run)", "mean stall\n(as run)"};
  bool any = false;
  for (size_t i = 0; i < phases.size(); ++i) {
    for (const char* m : {"projected_stall_seconds", "stall_seconds_max", "stall_seconds_mean"}) {
      auto v = value_in(phases[i], m);
      any = any || v.has_value();
      c->values[i].push_back(v.value_or(kNaN));
    }
  }
  c->x_label.clear();
  if (!any) {
    s.note(name + ": no stall figures in any report");
    return false;
  }
  s.note(name + ": no per-checkpoint details in any report; the phase's summary stalls are shown");
  return true;
}

PlotSection checkpoint_stalls(const std::vector<SystemReport>& systems) {
  Section s(
      systems, "plot-checkpoint-stall", "Checkpoint stall vs allowed stall",
      "Each checkpoint's stall of training, projected to the full-size checkpoint where the run wrote a "
      "scaled one (details.checkpoints[].budget.projected_seconds), against the allowed stall "
      "(budget_fraction x interval, dashed): bars above the line break the 5% rule.");
  s.each_phase_drawing(PhasePlot::kCheckpointStall, [&](const std::string& name, const Phases& phases) {
    BarChart c = s.bars_per_system("Checkpoint stall: " + name, {"stall per checkpoint", "s", false});
    c.x_label = "checkpoint";  // not a phase kind: the axis counts checkpoints
    std::vector<double> allowed(systems.size(), kNaN);
    std::vector<std::vector<double>> per_cp(systems.size());
    for (size_t i = 0; i < phases.size(); ++i) {
      if (phases[i] == nullptr) continue;
      allowed[i] = metric_value(*phases[i], "allowed_stall_seconds").value_or(kNaN);
      per_cp[i] = stalls_per_checkpoint(*phases[i], &allowed[i]);
    }
    if (!per_checkpoint_bars(s, name, phases, per_cp, &c) && !summary_stall_bars(s, name, phases, &c)) return;
    add_allowed_lines(systems, allowed, "allowed stall", &c.ref_lines);
    s.draw(c);
  });
  return s.done(NoData::kUnlessShown, "no report has a checkpoint phase.");
}

// --- restore time ------------------------------------------------------------

PlotSection restore_times(const std::vector<SystemReport>& systems) {
  Section s(systems, "plot-restore", "Restore time",
            "Time for every rank to read the checkpoint back (restore_seconds), and where the run restored a "
            "scaled checkpoint, the time projected for the full-size one; dashed: the restore budget.");
  BarChart c = s.bars_per_system("Restore time", {"restore time", "s", false});
  std::vector<double> allowed(systems.size(), kNaN);
  s.each_phase([&](const std::string& name, const Phases& phases) {
    bool has = false, has_projected = false;
    for (const PhaseReport* p : phases) {
      has = has || value_in(p, "restore_seconds").has_value();
      has_projected = has_projected || value_in(p, "projected_restore_seconds").has_value();
    }
    if (!has && !any_draws(phases, PhasePlot::kRestoreTime)) return;
    if (!has) {
      s.note(name + ": no restore_seconds in any report");
      return;
    }
    c.categories.push_back(name + "\nas run");
    if (has_projected) c.categories.push_back(name + "\nprojected, full size");
    for (size_t i = 0; i < phases.size(); ++i) {
      c.values[i].push_back(value_in(phases[i], "restore_seconds").value_or(kNaN));
      if (has_projected)
        c.values[i].push_back(value_in(phases[i], "projected_restore_seconds").value_or(kNaN));
      if (!std::isfinite(allowed[i]))
        allowed[i] = value_in(phases[i], "allowed_restore_seconds").value_or(kNaN);
    }
  });
  add_allowed_lines(systems, allowed, "restore budget", &c.ref_lines);
  s.draw(c);
  return s.done(NoData::kUnlessShown, "no report has a restore phase.");
}

// --- bandwidth over time ----------------------------------------------------

// Many intervals are merged into at most kMaxSeriesPoints, keeping the average rate.
void add_rate_points(const TimeSeries& ts, LineSeries* ls) {
  const auto& bytes = ts.bytes();
  const size_t group = (bytes.size() + kMaxSeriesPoints - 1) / kMaxSeriesPoints;
  const double dt = static_cast<double>(ts.interval_ns()) * 1e-9;
  for (size_t k = 0; k < bytes.size(); k += group) {
    const size_t end = std::min(bytes.size(), k + group);
    double sum = 0;
    for (size_t j = k; j < end; ++j) sum += static_cast<double>(bytes[j]);
    const double span = dt * static_cast<double>(end - k);
    ls->points.emplace_back(dt * static_cast<double>(k) + span / 2, sum / span);
  }
}

PlotSection time_series(const std::vector<SystemReport>& systems) {
  Section s(systems, "plot-series", "Bandwidth over time",
            "Bytes completed per interval since each phase's start, all ranks together (details.series); "
            "dips are stalls, a slope at the start is warm-up. The last interval may read low.");
  s.each_phase([&](const std::string& name, const Phases& phases) {
    LineChart c = line_chart("Bandwidth over time: " + name, {"time since the phase start", "s", false},
                             {"bandwidth", "bytes/s", false});
    for (size_t i = 0; i < phases.size(); ++i) {
      const PhaseReport* p = phases[i];
      if (p == nullptr || !get(p->details, "series").is_object()) continue;
      TimeSeries ts;
      if (!ts.from_json(get(p->details, "series"))) {
        s.note(i, name, "details.series is malformed, left out");
        continue;
      }
      const auto& bytes = ts.bytes();
      if (bytes.empty() || std::all_of(bytes.begin(), bytes.end(), [](uint64_t b) { return b == 0; }))
        continue;
      LineSeries ls = s.line_for(i);
      add_rate_points(ts, &ls);
      c.series.push_back(std::move(ls));
    }
    s.draw(c);
  });
  return s.done(NoData::kUnlessDrawn, "no phase in any report has a bandwidth time series (details.series).");
}

// --- host telemetry over time -------------------------------------------------

PlotSection telemetry_series(const std::vector<SystemReport>& systems) {
  Section s(systems, "plot-telemetry", "Host activity over time",
            "What each system's first sampled host did while the phase ran (details.telemetry): CPU busy "
            "(user + system) and waiting for I/O as shares of all cores, the busiest single core, and how "
            "much of the time each disk behind the target had I/O in flight. Time counts from the phase's "
            "start, setup included (its bandwidth series above starts after setup).");
  s.each_phase([&](const std::string& name, const Phases& phases) {
    LineChart c = line_chart("Host activity: " + name, {"time since the phase began", "s", false},
                             {"busy", "fraction", false});
    for (size_t i = 0; i < phases.size(); ++i) {
      const PhaseReport* p = phases[i];
      if (p == nullptr) continue;
      const json& hosts = get(get(p->details, "telemetry"), "hosts");
      if (!hosts.is_array() || hosts.empty() || !hosts[0].is_object()) continue;
      const json& samples = get(hosts[0], "samples");
      if (!samples.is_array() || samples.empty()) continue;
      const std::string who = systems.size() > 1 ? systems[i].label + ": " : "";
      LineSeries cpu{who + "CPU busy", {}, 0, false}, iowait{who + "iowait", {}, 1, false},
          core{who + "busiest core", {}, 2, true};
      std::map<std::string, LineSeries> disks;
      for (const json& x : samples) {
        if (!x.is_object()) continue;
        const double t = x.value("t_s", 0.0);
        cpu.points.emplace_back(t, x.value("cpu_user", 0.0) + x.value("cpu_system", 0.0));
        iowait.points.emplace_back(t, x.value("cpu_iowait", 0.0));
        core.points.emplace_back(t, x.value("busiest_core", 0.0));
        for (const json& d : x.value("disks", json::array())) {
          const std::string dev = d.value("device", std::string("?"));
          auto [it, added] = disks.try_emplace(dev);
          if (added) it->second = {who + dev + " util", {}, 3 + static_cast<int>(disks.size()), false};
          it->second.points.emplace_back(t, d.value("util", 0.0));
        }
      }
      for (LineSeries* ls : {&cpu, &iowait, &core}) c.series.push_back(std::move(*ls));
      for (auto& [dev, ls] : disks) c.series.push_back(std::move(ls));
    }
    s.draw(c);
  });
  return s.done(NoData::kUnlessDrawn, "no phase in any report has host telemetry (details.telemetry).");
}

// --- busbw vs message size ---------------------------------------------------

// "busbw.all_reduce.1048576" -> ("all_reduce", 1048576); false for "busbw.all_reduce.max".
bool parse_busbw(const std::string& m, std::string* op, double* size) {
  if (m.rfind("busbw.", 0) != 0) return false;
  const auto dot = m.rfind('.');
  if (dot <= 6 || dot + 1 >= m.size()) return false;
  const std::string tail = m.substr(dot + 1);
  if (tail.find_first_not_of("0123456789") != std::string::npos || tail.size() > 18) return false;
  *op = m.substr(6, dot - 6);
  *size = std::strtod(tail.c_str(), nullptr);
  return true;
}

PlotSection busbw_sweeps(const std::vector<SystemReport>& systems) {
  Section s(systems, "plot-busbw", "Bus bandwidth vs message size",
            "nccl-tests' bus bandwidth (busbw.<op>.<bytes>) over the sweep's message sizes, one plot per "
            "collective; log scale on x. Bus bandwidth compares across rank counts and with nccl-tests.");
  s.each_phase([&](const std::string& name, const Phases& phases) {
    std::map<std::string, std::vector<std::vector<std::pair<double, double>>>>
        by_op;  // op -> [system] points
    std::vector<std::string> op_order;
    for (size_t i = 0; i < phases.size(); ++i) {
      const PhaseReport* p = phases[i];
      if (p == nullptr || !p->metrics.is_object()) continue;
      for (const auto& [m, v] : p->metrics.items()) {
        std::string op;
        double size = 0;
        if (!parse_busbw(m, &op, &size) || !v.is_number()) continue;
        auto& slot = by_op[op];
        if (slot.empty()) {
          slot.resize(systems.size());
          op_order.push_back(op);
        }
        slot[i].emplace_back(size, v.get<double>());
      }
    }
    for (const auto& op : op_order) {
      LineChart c = line_chart("busbw vs message size: " + op + " (" + name + ")",
                               {"message size", "bytes", true}, {"bus bandwidth", "bytes/s", false});
      for (size_t i = 0; i < systems.size(); ++i) {
        if (by_op[op][i].empty()) continue;
        LineSeries ls = s.line_for(i);
        ls.points = std::move(by_op[op][i]);
        std::sort(ls.points.begin(), ls.points.end());
        c.series.push_back(std::move(ls));
      }
      s.draw(c);
    }
  });
  return s.done(NoData::kUnlessDrawn, "no report has a collectives sweep (busbw.<op>.<bytes> metrics).");
}

// --- DDP vs FSDP step ----------------------------------------------------------

PlotSection step_breakdown(const std::vector<SystemReport>& systems) {
  Section s(systems, "plot-steps", "DDP vs FSDP step",
            "One training step, slowest rank, stacked: emulated compute, then the communication not hidden "
            "behind it (exposed); together the step time. Communication overlapped with compute is off the "
            "critical path and not drawn.");
  s.each_phase([&](const std::string& name, const Phases& phases) {
    BarChart c;
    c.title = "Step time breakdown: " + name;
    c.y = {"time per step", "s", false};
    c.series = {"compute", "exposed communication", "step (no breakdown)"};
    c.values.assign(3, {});
    c.stacked = true;
    bool breakdown_missing = false;
    for (size_t i = 0; i < phases.size(); ++i) {
      for (const char* mode : {"ddp", "fsdp"}) {
        const std::string m(mode);
        auto step = value_in(phases[i], m + ".step_seconds");
        if (!step) continue;
        auto compute = value_in(phases[i], m + ".compute_seconds");
        auto exposed = value_in(phases[i], m + ".exposed_comm_seconds");
        std::string upper = m;
        for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        c.categories.push_back(systems[i].label + "\n" + upper);
        breakdown_missing = breakdown_missing || !compute || !exposed;
        c.values[0].push_back(compute && exposed ? *compute : kNaN);
        c.values[1].push_back(compute && exposed ? *exposed : kNaN);
        c.values[2].push_back(compute && exposed ? kNaN : *step);
      }
    }
    if (!breakdown_missing) {
      c.series.pop_back();
      c.values.pop_back();
    }
    s.draw(c);
  });
  return s.done(NoData::kUnlessDrawn,
                "no report has a DDP or FSDP step (ddp.step_seconds, fsdp.step_seconds).");
}

}  // namespace

std::vector<PlotSection> build_plots(const std::vector<SystemReport>& systems) {
  return {bandwidth_per_phase(systems), latency_cdfs(systems),     checkpoint_stalls(systems),
          restore_times(systems),       time_series(systems),      telemetry_series(systems),
          busbw_sweeps(systems),        step_breakdown(systems)};
}

}  // namespace iofab
