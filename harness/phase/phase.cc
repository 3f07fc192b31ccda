#include "harness/phase/phase.h"

namespace iofab {

Status make_phase_engine(const PhaseContext& ctx, std::string_view name, const EngineOptions& opts,
                         std::unique_ptr<Engine>* out) {
  return ctx.engines != nullptr ? (*ctx.engines)(name, opts, out) : make_engine(name, opts, out);
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

}  // namespace iofab
