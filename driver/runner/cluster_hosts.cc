#include "driver/runner/cluster_hosts.h"

#include <algorithm>
#include <unordered_map>

#include "harness/comm/rank_gather.h"
#include "harness/comm/wire.h"
#include "harness/core/json_text.h"

namespace iofab {

ClusterHosts cluster_hosts(const std::vector<std::string>& host_texts) {
  ClusterHosts out;
  std::unordered_map<std::string, size_t> index;  // hostname -> its entry in out.hosts
  std::vector<int> ranks_on;                      // per entry of out.hosts
  for (const auto& h : host_texts) {
    nlohmann::json j = nlohmann::json::parse(h, nullptr, false);
    if (!j.is_object()) continue;
    std::string name;
    WireReader(j).optional("hostname", &name);
    out.rank_hosts.push_back(name);
    auto [it, fresh] = index.emplace(name, out.hosts.size());
    if (fresh) {
      out.hosts.push_back(std::move(j));
      ranks_on.push_back(0);
    }
    ++ranks_on[it->second];
  }
  for (size_t i = 0; i < ranks_on.size(); ++i) out.hosts[i]["ranks"] = ranks_on[i];
  return out;
}

Status share_rank_hosts(Comm& comm, const std::string& this_host, std::vector<std::string>* texts) {
  texts->clear();
  std::vector<std::string> all;
  if (Status g = gather_to_root(comm, this_host, &all); !g.ok()) return g;
  std::string names;
  if (comm.rank() == 0) {
    *texts = std::move(all);
    nlohmann::json list = nlohmann::json::array();
    for (const auto& rank : cluster_hosts(*texts).rank_hosts) list.push_back(rank);
    names = json_text(list);
  }
  if (Status b = comm.broadcast(&names, 0); !b.ok()) return b;
  if (comm.rank() == 0) return Status::Ok();
  const nlohmann::json list = nlohmann::json::parse(names, nullptr, false);
  if (!list.is_array() || list.size() != static_cast<size_t>(comm.size())) {
    return Status::Internal("rank 0 sent a host list that is not one hostname a rank");
  }
  for (int r = 0; r < comm.size(); ++r) {
    const auto& name = list[static_cast<size_t>(r)];
    texts->push_back(r == comm.rank() ? this_host : json_text(nlohmann::json{{"hostname", name}}));
  }
  return Status::Ok();
}

nlohmann::json lost_hosts(const nlohmann::json& rank_hosts, const std::vector<int>& lost) {
  nlohmann::json out = nlohmann::json::array();
  std::vector<int> ranks = lost;
  std::sort(ranks.begin(), ranks.end());
  for (int r : ranks) {
    if (r < 0 || static_cast<size_t>(r) >= rank_hosts.size()) continue;
    if (std::find(out.begin(), out.end(), rank_hosts[static_cast<size_t>(r)]) == out.end()) {
      out.push_back(rank_hosts[static_cast<size_t>(r)]);
    }
  }
  return out;
}

}  // namespace iofab
