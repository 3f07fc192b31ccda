#include "harness/runner/cluster_hosts.h"

#include <unordered_map>

#include "harness/comm/wire.h"

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

}  // namespace iofab
