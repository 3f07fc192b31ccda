// The report's cluster.hosts and cluster.rank_hosts from every rank's description of its host (the
// JSON text of describe_host, gathered to the report's writer in rank order). One pass with an index
// by host name: at 16,384 ranks on 2,048 hosts, comparing each rank with every host seen would be
// 33 million JSON comparisons (docs/scale.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/comm/comm.h"
#include "harness/core/status.h"

namespace iofab {

struct ClusterHosts {
  nlohmann::json hosts = nlohmann::json::array();       // each host once, first rank's description, + "ranks"
  nlohmann::json rank_hosts = nlohmann::json::array();  // each rank's hostname, in rank order
};

// A description that is not a JSON object (another rank's, read with checks) is left out of both.
ClusterHosts cluster_hosts(const std::vector<std::string>& host_texts);

// Collective, at the start of a run (before any phase can lose a rank): every rank's description to
// rank 0, then every rank's hostname to every rank. *texts: on rank 0 every rank's description; on the
// others each rank's {"hostname"} (their own described in full). So whichever rank writes the report
// after a loss, rank 0's host lost with it or not, names every rank's host (issue 30, findings 2 and 3).
// O(ranks) names a rank: 16,384 ranks' hostnames are about 200 KB.
Status share_rank_hosts(Comm& comm, const std::string& this_host, std::vector<std::string>* texts);

// cluster.lost_hosts: the hosts of the lost ranks, each once, in rank order.
nlohmann::json lost_hosts(const nlohmann::json& rank_hosts, const std::vector<int>& lost);

}  // namespace iofab
