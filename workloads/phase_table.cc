#include "workloads/ingest_phase.h"
#include "workloads/phase.h"

namespace iofab {

const std::vector<PhaseKind>& phase_table() {
  static const std::vector<PhaseKind> kTable = {
      {"ingest", "large sequential writes, many streams, fsync at end", &parse_ingest, &ingest_metrics},
  };
  return kTable;
}

const PhaseKind* find_phase_kind(std::string_view name) {
  for (const auto& k : phase_table()) {
    if (k.name == name) return &k;
  }
  return nullptr;
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
