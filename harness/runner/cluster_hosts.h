// The report's cluster.hosts and cluster.rank_hosts from every rank's description of its host (the
// JSON text of describe_host, gathered to the report's writer in rank order). One pass with an index
// by host name: at 16,384 ranks on 2,048 hosts, comparing each rank with every host seen would be
// 33 million JSON comparisons (docs/scale.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace iofab {

struct ClusterHosts {
  nlohmann::json hosts = nlohmann::json::array();       // each host once, first rank's description, + "ranks"
  nlohmann::json rank_hosts = nlohmann::json::array();  // each rank's hostname, in rank order
};

// A description that is not a JSON object (another rank's, read with checks) is left out of both.
ClusterHosts cluster_hosts(const std::vector<std::string>& host_texts);

}  // namespace iofab
