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

std::vector<const PhaseReport*> phases_named(const std::vector<SystemReport>& systems,
                                             const std::string& name) {
  std::vector<const PhaseReport*> out;
  for (const auto& s : systems) out.push_back(find_phase(s.loaded.report, name));
  return out;
}

bool any_kind(const std::vector<const PhaseReport*>& phases, const std::string& kind) {
  return std::any_of(phases.begin(), phases.end(),
                     [&](const PhaseReport* p) { return p != nullptr && p->kind == kind; });
}

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
  PlotSection s;
  s.id = "plot-bandwidth";
  s.heading = "Bandwidth per phase";
  s.explanation = "Each phase's headline bandwidth (the first bytes/s figure it reports), per system.";
  BarChart c;
  c.title = "Bandwidth per phase";
  c.y = {"bandwidth", "bytes/s", false};
  for (const auto& sys : systems) c.series.push_back(sys.label);
  c.values.resize(systems.size());
  for (const auto& name : phase_names(systems)) {
    const auto phases = phases_named(systems, name);
    const std::string m = bandwidth_metric(phases);
    if (m.empty()) continue;
    c.categories.push_back(name + "\n" + m);
    for (size_t i = 0; i < phases.size(); ++i) {
      auto v = phases[i] != nullptr ? metric_value(*phases[i], m) : std::nullopt;
      c.values[i].push_back(v.value_or(kNaN));
    }
  }
  if (c.categories.empty()) {
    s.notes.push_back("No data: no phase in any report has a bandwidth (bytes/s) metric.");
  } else {
    s.svgs.push_back(render_svg(c));
  }
  return s;
}

// --- train_read latency CDF --------------------------------------------------

std::vector<double> quantile_grid() {
  std::vector<double> q;
  for (int i = 0; i < 200; ++i) q.push_back(i / 200.0);
  for (double t : {0.995, 0.999, 0.9995, 0.9999, 1.0}) q.push_back(t);
  return q;
}

PlotSection latency_cdfs(const std::vector<SystemReport>& systems) {
  PlotSection s;
  s.id = "plot-latency-cdf";
  s.heading = "Training-read latency";
  s.explanation =
      "Cumulative distribution of per-sample read latency in the train_read phase (log scale): the "
      "further left and the steeper, the better; the top of the curve is the tail.";
  bool any_phase = false;
  for (const auto& name : phase_names(systems)) {
    const auto phases = phases_named(systems, name);
    if (!any_kind(phases, "train_read")) continue;
    any_phase = true;
    LineChart c;
    c.title = "Sample read latency CDF: " + name;
    c.x = {"sample read latency", "s", true};
    c.y = {"fraction of samples", "fraction", false};
    c.markers = false;
    for (size_t i = 0; i < phases.size(); ++i) {
      const PhaseReport* p = phases[i];
      if (p == nullptr) continue;
      const json* hj = nullptr;
      for (const char* key : {"sample_latency_histogram", "latency_histogram"}) {
        if (get(p->details, key).is_object()) {
          hj = &get(p->details, key);
          break;
        }
      }
      if (hj == nullptr) {
        s.notes.push_back(systems[i].label + ", " + name + ": no latency histogram in details");
        continue;
      }
      Histogram h;
      if (!h.from_json(*hj)) {
        s.notes.push_back(systems[i].label + ", " + name + ": the latency histogram is malformed, left out");
        continue;
      }
      if (h.count() == 0) {
        s.notes.push_back(systems[i].label + ", " + name + ": no samples were read");
        continue;
      }
      LineSeries ls;
      ls.name = systems[i].label;
      ls.color = static_cast<int>(i);
      for (double q : quantile_grid()) ls.points.emplace_back(static_cast<double>(h.percentile(q)) * 1e-9, q);
      c.series.push_back(std::move(ls));
    }
    if (!c.series.empty()) s.svgs.push_back(render_svg(c));
  }
  if (!any_phase) s.notes.push_back("No data: no report has a train_read phase.");
  return s;
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

PlotSection checkpoint_stalls(const std::vector<SystemReport>& systems) {
  PlotSection s;
  s.id = "plot-checkpoint-stall";
  s.heading = "Checkpoint stall vs allowed stall";
  s.explanation =
      "Each checkpoint's stall of training, projected to the full-size checkpoint where the run wrote a "
      "scaled one (details.checkpoints[].budget.projected_seconds), against the allowed stall "
      "(budget_fraction x interval, dashed): bars above the line break the 5% rule.";
  bool any_phase = false;
  for (const auto& name : phase_names(systems)) {
    const auto phases = phases_named(systems, name);
    if (!any_kind(phases, "checkpoint")) continue;
    any_phase = true;
    BarChart c;
    c.title = "Checkpoint stall: " + name;
    c.x_label = "checkpoint";
    c.y = {"stall per checkpoint", "s", false};
    std::vector<double> allowed(systems.size(), kNaN);
    std::vector<std::vector<double>> per_cp(systems.size());
    bool any_detail = false;
    for (size_t i = 0; i < phases.size(); ++i) {
      const PhaseReport* p = phases[i];
      if (p == nullptr) continue;
      allowed[i] = metric_value(*p, "allowed_stall_seconds").value_or(kNaN);
      const json& cps = get(p->details, "checkpoints");
      if (!cps.is_array()) continue;
      for (const auto& cp : cps) {
        const json& budget = get(cp, "budget");
        auto v = number(get(budget, "projected_seconds"));
        if (!v) v = number(get(cp, "stall_seconds"));
        per_cp[i].push_back(v.value_or(kNaN));
        if (!std::isfinite(allowed[i])) allowed[i] = number(get(budget, "allowed_seconds")).value_or(kNaN);
      }
      any_detail = any_detail || !per_cp[i].empty();
    }
    for (const auto& sys : systems) c.series.push_back(sys.label);
    c.values.resize(systems.size());
    if (any_detail) {
      size_t n = 0;
      for (const auto& v : per_cp) n = std::max(n, v.size());
      if (n > kMaxCheckpoints) {
        s.notes.push_back(name + ": the first " + std::to_string(kMaxCheckpoints) + " of " +
                          std::to_string(n) + " checkpoints are shown");
        n = kMaxCheckpoints;
      }
      for (size_t k = 0; k < n; ++k) c.categories.push_back("#" + std::to_string(k + 1));
      for (size_t i = 0; i < systems.size(); ++i) {
        for (size_t k = 0; k < n; ++k) c.values[i].push_back(k < per_cp[i].size() ? per_cp[i][k] : kNaN);
        if (phases[i] != nullptr && per_cp[i].empty()) {
          s.notes.push_back(systems[i].label + ", " + name + ": no per-checkpoint details");
        }
      }
    } else {
      // Reports without per-checkpoint details still carry the worst and mean stalls.
      c.categories = {"longest stall\n(projected, full size)", "longest stall\n(as run)",
                      "mean stall\n(as run)"};
      bool any = false;
      for (size_t i = 0; i < systems.size(); ++i) {
        for (const char* m : {"projected_stall_seconds", "stall_seconds_max", "stall_seconds_mean"}) {
          auto v = phases[i] != nullptr ? metric_value(*phases[i], m) : std::nullopt;
          any = any || v.has_value();
          c.values[i].push_back(v.value_or(kNaN));
        }
      }
      c.x_label.clear();
      if (!any) {
        s.notes.push_back(name + ": no stall figures in any report");
        continue;
      }
      s.notes.push_back(name +
                        ": no per-checkpoint details in any report; the phase's summary stalls are shown");
    }
    add_allowed_lines(systems, allowed, "allowed stall", &c.ref_lines);
    s.svgs.push_back(render_svg(c));
  }
  if (!any_phase) s.notes.push_back("No data: no report has a checkpoint phase.");
  return s;
}

// --- restore time ------------------------------------------------------------

PlotSection restore_times(const std::vector<SystemReport>& systems) {
  PlotSection s;
  s.id = "plot-restore";
  s.heading = "Restore time";
  s.explanation =
      "Time for every rank to read the checkpoint back (restore_seconds), and where the run restored a "
      "scaled checkpoint, the time projected for the full-size one; dashed: the restore budget.";
  BarChart c;
  c.title = "Restore time";
  c.y = {"restore time", "s", false};
  for (const auto& sys : systems) c.series.push_back(sys.label);
  c.values.resize(systems.size());
  std::vector<double> allowed(systems.size(), kNaN);
  for (const auto& name : phase_names(systems)) {
    const auto phases = phases_named(systems, name);
    bool has = false, has_projected = false;
    for (const PhaseReport* p : phases) {
      if (p == nullptr) continue;
      has = has || metric_value(*p, "restore_seconds").has_value();
      has_projected = has_projected || metric_value(*p, "projected_restore_seconds").has_value();
    }
    if (!has && !any_kind(phases, "restore")) continue;
    if (!has) {
      s.notes.push_back(name + ": no restore_seconds in any report");
      continue;
    }
    c.categories.push_back(name + "\nas run");
    if (has_projected) c.categories.push_back(name + "\nprojected, full size");
    for (size_t i = 0; i < phases.size(); ++i) {
      const PhaseReport* p = phases[i];
      c.values[i].push_back(p != nullptr ? metric_value(*p, "restore_seconds").value_or(kNaN) : kNaN);
      if (has_projected) {
        c.values[i].push_back(p != nullptr ? metric_value(*p, "projected_restore_seconds").value_or(kNaN)
                                           : kNaN);
      }
      if (p != nullptr && !std::isfinite(allowed[i])) {
        allowed[i] = metric_value(*p, "allowed_restore_seconds").value_or(kNaN);
      }
    }
  }
  if (c.categories.empty()) {
    if (s.notes.empty()) s.notes.push_back("No data: no report has a restore phase.");
    return s;
  }
  add_allowed_lines(systems, allowed, "restore budget", &c.ref_lines);
  s.svgs.push_back(render_svg(c));
  return s;
}

// --- bandwidth over time ----------------------------------------------------

PlotSection time_series(const std::vector<SystemReport>& systems) {
  PlotSection s;
  s.id = "plot-series";
  s.heading = "Bandwidth over time";
  s.explanation =
      "Bytes completed per interval since each phase's start, all ranks together (details.series); "
      "dips are stalls, a slope at the start is warm-up. The last interval may read low.";
  for (const auto& name : phase_names(systems)) {
    const auto phases = phases_named(systems, name);
    LineChart c;
    c.title = "Bandwidth over time: " + name;
    c.x = {"time since the phase start", "s", false};
    c.y = {"bandwidth", "bytes/s", false};
    for (size_t i = 0; i < phases.size(); ++i) {
      const PhaseReport* p = phases[i];
      if (p == nullptr || !get(p->details, "series").is_object()) continue;
      TimeSeries ts;
      if (!ts.from_json(get(p->details, "series"))) {
        s.notes.push_back(systems[i].label + ", " + name + ": details.series is malformed, left out");
        continue;
      }
      const auto& bytes = ts.bytes();
      if (bytes.empty() || std::all_of(bytes.begin(), bytes.end(), [](uint64_t b) { return b == 0; }))
        continue;
      // Many intervals are merged into at most kMaxSeriesPoints, keeping the average rate.
      const size_t group = (bytes.size() + kMaxSeriesPoints - 1) / kMaxSeriesPoints;
      const double dt = static_cast<double>(ts.interval_ns()) * 1e-9;
      LineSeries ls;
      ls.name = systems[i].label;
      ls.color = static_cast<int>(i);
      for (size_t k = 0; k < bytes.size(); k += group) {
        const size_t end = std::min(bytes.size(), k + group);
        double sum = 0;
        for (size_t j = k; j < end; ++j) sum += static_cast<double>(bytes[j]);
        const double span = dt * static_cast<double>(end - k);
        ls.points.emplace_back(dt * static_cast<double>(k) + span / 2, sum / span);
      }
      c.series.push_back(std::move(ls));
    }
    if (!c.series.empty()) s.svgs.push_back(render_svg(c));
  }
  if (s.svgs.empty())
    s.notes.push_back("No data: no phase in any report has a bandwidth time series (details.series).");
  return s;
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
  PlotSection s;
  s.id = "plot-busbw";
  s.heading = "Bus bandwidth vs message size";
  s.explanation =
      "nccl-tests' bus bandwidth (busbw.<op>.<bytes>) over the sweep's message sizes, one plot per "
      "collective; log scale on x. Bus bandwidth compares across rank counts and with nccl-tests.";
  for (const auto& name : phase_names(systems)) {
    const auto phases = phases_named(systems, name);
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
      LineChart c;
      c.title = "busbw vs message size: " + op + " (" + name + ")";
      c.x = {"message size", "bytes", true};
      c.y = {"bus bandwidth", "bytes/s", false};
      for (size_t i = 0; i < systems.size(); ++i) {
        auto pts = by_op[op][i];
        if (pts.empty()) continue;
        std::sort(pts.begin(), pts.end());
        c.series.push_back({systems[i].label, std::move(pts), static_cast<int>(i), false});
      }
      s.svgs.push_back(render_svg(c));
    }
  }
  if (s.svgs.empty())
    s.notes.push_back("No data: no report has a collectives sweep (busbw.<op>.<bytes> metrics).");
  return s;
}

// --- DDP vs FSDP step ----------------------------------------------------------

PlotSection step_breakdown(const std::vector<SystemReport>& systems) {
  PlotSection s;
  s.id = "plot-steps";
  s.heading = "DDP vs FSDP step";
  s.explanation =
      "One training step, slowest rank, stacked: emulated compute, then the communication not hidden "
      "behind it (exposed); together the step time. Communication overlapped with compute is off the "
      "critical path and not drawn.";
  for (const auto& name : phase_names(systems)) {
    const auto phases = phases_named(systems, name);
    BarChart c;
    c.title = "Step time breakdown: " + name;
    c.y = {"time per step", "s", false};
    c.series = {"compute", "exposed communication", "step (no breakdown)"};
    c.values.assign(3, {});
    c.stacked = true;
    bool breakdown_missing = false;
    for (size_t i = 0; i < phases.size(); ++i) {
      const PhaseReport* p = phases[i];
      if (p == nullptr) continue;
      for (const char* mode : {"ddp", "fsdp"}) {
        const std::string m(mode);
        auto step = metric_value(*p, m + ".step_seconds");
        if (!step) continue;
        auto compute = metric_value(*p, m + ".compute_seconds");
        auto exposed = metric_value(*p, m + ".exposed_comm_seconds");
        std::string upper = m;
        for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        c.categories.push_back(systems[i].label + "\n" + upper);
        if (compute && exposed) {
          c.values[0].push_back(*compute);
          c.values[1].push_back(*exposed);
          c.values[2].push_back(kNaN);
        } else {
          breakdown_missing = true;
          c.values[0].push_back(kNaN);
          c.values[1].push_back(kNaN);
          c.values[2].push_back(*step);
        }
      }
    }
    if (c.categories.empty()) continue;
    if (!breakdown_missing) {
      c.series.pop_back();
      c.values.pop_back();
    }
    s.svgs.push_back(render_svg(c));
  }
  if (s.svgs.empty())
    s.notes.push_back("No data: no report has a DDP or FSDP step (ddp.step_seconds, fsdp.step_seconds).");
  return s;
}

}  // namespace

std::vector<PlotSection> build_plots(const std::vector<SystemReport>& systems) {
  return {bandwidth_per_phase(systems), latency_cdfs(systems), checkpoint_stalls(systems),
          restore_times(systems),       time_series(systems),  busbw_sweeps(systems),
          step_breakdown(systems)};
}

}  // namespace iofab
