#include "workloads/rdma/fabric_ceiling.h"

namespace iofab {

nlohmann::json collectives_vs_verbs(const std::vector<PhaseFigures>& phases, const std::string& rdma_name) {
  nlohmann::json out = nlohmann::json::array();
  const PhaseFigures* rdma = nullptr;
  for (const auto& p : phases) {
    if (p.kind == "rdma" && p.name == rdma_name) rdma = &p;
  }
  if (rdma == nullptr) return out;
  const auto w = rdma->metrics.find("write_bytes_per_s.max");
  if (w == rdma->metrics.end() || w->second <= 0) return out;
  const std::string prefix = "busbw.", suffix = ".max";
  for (const auto& p : phases) {
    if (p.kind != "collectives") continue;
    for (const auto& [name, value] : p.metrics) {
      if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
        continue;
      }
      const std::string op = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
      out.push_back({{"collectives_phase", p.name},
                     {"op", op},
                     {"busbw_max", value},
                     {"rdma_phase", rdma->name},
                     {"write_bytes_per_s_max", w->second},
                     {"ratio", value / w->second}});
    }
  }
  return out;
}

void join_collectives_and_verbs(std::vector<PhaseReport>* phases) { add_collectives_vs_verbs(*phases); }

}  // namespace iofab
