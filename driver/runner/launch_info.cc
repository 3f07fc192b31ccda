#include "driver/runner/launch_info.h"

#include <map>
#include <string>

namespace iofab {
namespace {

nlohmann::json or_null(const std::optional<std::string>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

}  // namespace

nlohmann::json launch_json(const Launcher& launcher, const nlohmann::json& rank_hosts) {
  nlohmann::json nodes = nlohmann::json::array();
  std::map<std::string, int> per_node;
  for (const auto& h : rank_hosts) {
    if (!h.is_string()) continue;
    if (per_node[h.get<std::string>()]++ == 0) nodes.push_back(h);
  }
  nlohmann::json tasks_per_node;
  for (const auto& [name, count] : per_node) {
    if (tasks_per_node.is_null()) tasks_per_node = count;
    if (tasks_per_node != count) {
      tasks_per_node = nullptr;
      break;
    }
  }
  return {{"launcher", launcher.name},
          {"scheduler", or_null(launcher.scheduler)},
          {"job_id", or_null(launcher.job_id)},
          {"step_id", or_null(launcher.step_id)},
          {"partition", or_null(launcher.partition)},
          {"node_list", or_null(launcher.node_list)},
          {"nodes", nodes},
          {"tasks_per_node", tasks_per_node}};
}

nlohmann::json launch_json(const nlohmann::json& rank_hosts) {
  return launch_json(detect_launcher(launch_process_env()), rank_hosts);
}

}  // namespace iofab
