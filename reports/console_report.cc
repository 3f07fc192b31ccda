#include "reports/console_report.h"

#include <cmath>
#include <cstdio>

#include "harness/core/units.h"
#include "reports/bottleneck_hint.h"
#include "reports/concurrent_console.h"
#include "workloads/phase_table.h"

namespace iofab {

using nlohmann::json;

std::string format_metric_value(double value, const std::string& unit) {
  if (!std::isfinite(value)) return "n/a";  // never "inf" or "nan" in front of a user
  char buf[64];
  if (unit == "bytes") return units::format_bytes(value);
  if (unit == "bytes/s") return units::format_rate(value);
  if (unit == "s") return units::format_duration(value);
  if (unit == "ops/s") {
    std::snprintf(buf, sizeof buf, "%.4g ops/s", value);
    return buf;
  }
  if (unit == "fraction") {
    std::snprintf(buf, sizeof buf, "%.1f%%", value * 100);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.4g", value);
  return buf;
}

namespace {

// What the collective library gets out of the wire, when an rdma phase measured the wire.
void collectives_over_verbs(const PhaseReport& p, std::ostream& out) {
  if (!p.details.contains("collectives_vs_verbs") || !p.details["collectives_vs_verbs"].is_array()) return;
  for (const auto& rec : p.details["collectives_vs_verbs"]) {
    if (!rec.is_object() || !rec.contains("ratio") || !rec["ratio"].is_number()) continue;
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.2f", rec["ratio"].get<double>());
    out << "    " << rec.value("collectives_phase", std::string("?")) << " "
        << rec.value("op", std::string("?")) << " busbw " << units::format_rate(rec.value("busbw_max", 0.0))
        << " = " << ratio << " x this RDMA WRITE "
        << units::format_rate(rec.value("write_bytes_per_s_max", 0.0)) << "\n";
  }
}

// A framework loader (train_read with loader pytorch): its figure beside the storage's ceiling.
void loader_vs_ceiling(const PhaseReport& p, std::ostream& out) {
  if (!p.details.contains("storage_ceiling") || !p.metrics.contains("framework_fraction") ||
      !p.metrics["framework_fraction"].is_number() || !p.metrics.contains("storage_ceiling_samples_per_s")) {
    return;
  }
  char line[160];
  std::snprintf(line, sizeof line,
                "    pytorch loader %.4g samples/s = %.1f%% of the storage ceiling %.4g samples/s (native "
                "loader)\n",
                p.metrics.value("samples_per_s", 0.0), p.metrics["framework_fraction"].get<double>() * 100,
                p.metrics["storage_ceiling_samples_per_s"].get<double>());
  out << line;
}

// A pipeline phase's slowest stage (prepare): its name and the figures that named it.
void bound_by(const PhaseReport& p, std::ostream& out) {
  if (!p.details.contains("bound_by") || !p.details["bound_by"].is_object()) return;
  const json& b = p.details["bound_by"];
  out << "    bound by: " << b.value("label", std::string("?")) << " (" << b.value("why", std::string())
      << ")\n";
}

// The lines the phase's kind adds from its details (its row's console_lines), in the row's order.
void write_kind_lines(const PhaseReport& p, std::ostream& out) {
  const PhaseKind* kind = find_phase_kind(p.kind);
  if (kind == nullptr) return;
  for (ConsoleLine line : kind->console_lines) {
    switch (line) {
      case ConsoleLine::kCollectivesVsVerbs:
        collectives_over_verbs(p, out);
        break;
      case ConsoleLine::kLoaderVsCeiling:
        loader_vs_ceiling(p, out);
        break;
      case ConsoleLine::kBoundBy:
        bound_by(p, out);
        break;
    }
  }
}

}  // namespace

void write_console_summary(const Report& r, std::ostream& out) {
  out << "\n";
  for (const auto& p : r.phases) {
    std::string status = phase_status_text(p.status);
    for (auto& c : status) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out << "[" << status << "] " << p.name << " (" << p.kind << ")";
    if (!p.reason.empty()) out << ": " << p.reason;
    out << "\n";
    const json& headline = p.details.contains("headline") ? p.details["headline"] : json::array();
    const json& unit_map = p.details.contains("units") ? p.details["units"] : json::object();
    for (const auto& name : headline) {
      const std::string n = name.get<std::string>();
      if (!p.metrics.contains(n) || !p.metrics[n].is_number()) continue;
      out << "    " << n << " = "
          << format_metric_value(p.metrics[n].get<double>(), unit_map.value(n, std::string("count"))) << "\n";
    }
    // The wait before the measured window, which no metric above counts.
    if (p.setup_seconds) {
      out << "    setup (untimed) = " << format_metric_value(*p.setup_seconds, "s") << " of "
          << format_metric_value(p.seconds, "s") << "\n";
    }
    write_concurrent_lines(p, out);
    // Said before the checks, so nobody reads a cached figure as the storage's.
    if (p.verification) out << "    " << p.verification->note << "\n";
    for (const auto& c : p.checks) {
      out << "    " << (c.passed ? "pass" : "FAIL") << "  " << c.name << "  (measured ";
      out << (c.has_value ? format_metric_value(c.value, unit_map.value(c.metric, std::string("count")))
                          : std::string("nothing"))
          << ")\n";
    }
    write_kind_lines(p, out);
    if (p.details.contains("bottleneck")) out << "    hint: " << hint_text(p.details["bottleneck"]) << "\n";
    for (const auto& w : p.warnings) out << "    warning: " << w << "\n";
  }
  size_t checks = 0, failed = 0;
  for (const auto& p : r.phases) {
    for (const auto& c : p.checks) {
      ++checks;
      failed += c.passed ? 0 : 1;
    }
  }
  out << "\nverdict: " << r.verdict << " (" << (checks - failed) << "/" << checks << " checks passed)\n";
  for (const auto& reason : r.verdict_reasons) out << "  - " << reason << "\n";
}

}  // namespace iofab
