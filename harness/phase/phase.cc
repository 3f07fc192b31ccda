#include "harness/phase/phase.h"

namespace iofab {

Status make_phase_engine(const PhaseContext& ctx, std::string_view name, const EngineOptions& opts,
                         std::unique_ptr<Engine>* out) {
  return ctx.engines != nullptr ? (*ctx.engines)(name, opts, out) : make_engine(name, opts, out);
}

void add_setup(PhaseResult* result, uint64_t start_ns, uint64_t t0_ns) {
  const double part = t0_ns > start_ns ? static_cast<double>(t0_ns - start_ns) * 1e-9 : 0.0;
  result->setup_seconds = result->setup_seconds.value_or(0.0) + part;
}

const MetricInfo* find_metric(const PhaseKind& kind, std::string_view metric) {
  for (const auto& m : kind.metrics()) {
    if (m.name == metric) return &m;
    if (m.name.size() >= 2 && m.name.ends_with(".*")) {
      std::string_view prefix(m.name.data(), m.name.size() - 1);
      if (metric.starts_with(prefix) && metric.size() > prefix.size()) return &m;
    }
  }
  return nullptr;
}

bool is_verify_metric(const PhaseKind& kind, std::string_view metric) {
  for (std::string_view m : kind.verify_metrics) {
    if (m == metric) return true;
  }
  return false;
}

std::vector<MetricInfo> with_solo_metrics(std::vector<MetricInfo> table, std::span<const std::string_view> solo) {
  const size_t own = table.size();
  for (std::string_view name : solo) {
    for (size_t i = 0; i < own; ++i) {
      if (table[i].name != name) continue;
      const MetricInfo m = table[i];
      table.push_back({.name = m.name + "_solo",
                       .unit = m.unit,
                       .better = m.better,
                       .description = "concurrent group: " + m.name + " of the same phase run alone"});
      table.push_back(
          {.name = m.name + "_vs_solo",
           .unit = Unit::kRatio,
           .better = Better::kNeither,
           .description = "concurrent group: " + m.name + " beside the other phases / " + m.name + " alone"});
    }
  }
  return table;
}

}  // namespace iofab
