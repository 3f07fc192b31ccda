// The report's cluster.launch block: which launcher started the run and where (issue 30, finding 4),
// from the environment the launcher sets (harness/comm/launcher.h) and the hosts the ranks ran on.
//
//   {"launcher": "srun", "scheduler": "slurm", "job_id": "12", "step_id": "0", "partition": "debug",
//    "node_list": "h[1-2]", "nodes": ["h1", "h2"], "tasks_per_node": 2}
//
// Fields the launcher does not set are null; nodes and tasks_per_node come from the ranks' hostnames
// (tasks_per_node null when the hosts run different counts).
#pragma once

#include <nlohmann/json.hpp>

#include "harness/comm/launcher.h"

namespace iofab {

nlohmann::json launch_json(const Launcher& launcher, const nlohmann::json& rank_hosts);

// launch_json of this process's environment.
nlohmann::json launch_json(const nlohmann::json& rank_hosts);

}  // namespace iofab
