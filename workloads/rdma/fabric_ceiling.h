// Collectives against the verbs ceiling: when a report holds both a
// `collectives` phase and an `rdma` phase, busbw.<op>.max / write_bytes_per_s.max
// says how much of what one link moves with raw RDMA WRITE the collective
// library gets as bus bandwidth (nccl-tests' busbw is per-rank link traffic,
// so the two compare; near 1 is a library at the wire's speed).
// The records go into each rdma phase's details.collectives_vs_verbs.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/results/report.h"

namespace iofab {

struct PhaseFigures {
  std::string name;
  std::string kind;
  std::map<std::string, double> metrics;
};

// One record per (collectives phase, op with busbw.<op>.max) for the rdma
// phase `rdma_name`: {collectives_phase, op, busbw_max, rdma_phase,
// write_bytes_per_s_max, ratio}. Empty when either side has no figure.
nlohmann::json collectives_vs_verbs(const std::vector<PhaseFigures>& phases, const std::string& rdma_name);

// For the runner: reads name, kind, metrics (a JSON object) and details of
// each finished phase report, and adds details.collectives_vs_verbs to each
// rdma phase that has records.
template <class PhaseReports>
void add_collectives_vs_verbs(PhaseReports& phases) {
  std::vector<PhaseFigures> figures;
  for (const auto& p : phases) {
    PhaseFigures f{p.name, p.kind, {}};
    for (const auto& [k, v] : p.metrics.items()) {
      if (v.is_number()) f.metrics[k] = v.template get<double>();
    }
    figures.push_back(std::move(f));
  }
  for (auto& p : phases) {
    if (p.kind != "rdma") continue;
    nlohmann::json records = collectives_vs_verbs(figures, p.name);
    if (!records.empty()) p.details["collectives_vs_verbs"] = std::move(records);
  }
}

// The rdma row's PhaseKind::after_all.
void join_collectives_and_verbs(std::vector<PhaseReport>* phases);

}  // namespace iofab
