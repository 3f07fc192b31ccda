// Issue 30 (many hosts), the parts that need no hosts: the launcher read from its environment (the
// report's cluster.launch and comm_reason), srun without PMIx refused as bad input, the refusal of a target
// that is not the same folder on every host, the suite's target_scope, and the lost ranks' hosts. The runs
// across simulated hosts are tests/hosts/hosts_test.py (label `hosts`).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "harness/comm/launcher.h"
#include "driver/runner/cluster_hosts.h"
#include "driver/runner/launch_info.h"
#include "driver/suite/suite.h"
#include "driver/targets/folder/target_agreement.h"
#include "driver/targets/run_target.h"

namespace iofab {
namespace {

using nlohmann::json;

LaunchEnv env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

const std::map<std::string, std::string> kSrunStep = {{"SLURM_JOB_ID", "12"},
                                                      {"SLURM_STEP_ID", "0"},
                                                      {"SLURM_PROCID", "0"},
                                                      {"SLURM_STEP_NODELIST", "h[1-2]"},
                                                      {"SLURM_JOB_NODELIST", "h[1-3]"},
                                                      {"SLURM_JOB_PARTITION", "debug"},
                                                      {"SLURM_STEP_NUM_TASKS", "4"}};

TEST(ManyHosts, SrunWithPmixNamesTheJobStepNodesAndPartition) {
  auto vars = kSrunStep;
  vars["PMIX_RANK"] = "0";
  const Launcher l = detect_launcher(env_of(vars));
  EXPECT_EQ(l.name, "srun");
  EXPECT_EQ(l.job_id, "12");
  EXPECT_EQ(l.step_id, "0");
  EXPECT_EQ(l.node_list, "h[1-2]");
  EXPECT_EQ(l.partition, "debug");
  EXPECT_EQ(launcher_reason(l), "launched by srun (Slurm job 12, step 0)");
  EXPECT_FALSE(srun_without_pmi(env_of(vars)).has_value());
  const json j = launch_json(l, json{"h1", "h1", "h2", "h2"});
  EXPECT_EQ(j["nodes"], (json{"h1", "h2"}));
  EXPECT_EQ(j["tasks_per_node"], 2);
  EXPECT_EQ(j["scheduler"], "slurm");
}

TEST(ManyHosts, MpirunNamesItsOwnJobAndUnevenHostsHaveNoTasksPerNode) {
  const Launcher l =
      detect_launcher(env_of({{"OMPI_COMM_WORLD_SIZE", "3"}, {"OMPI_MCA_ess_base_jobid", "77"}}));
  EXPECT_EQ(l.name, "mpirun");
  EXPECT_EQ(l.job_id, "77");
  EXPECT_FALSE(l.scheduler.has_value());
  EXPECT_EQ(launcher_reason(l), "launched by mpirun (job 77)");
  const json j = launch_json(l, json{"a", "a", "b"});
  EXPECT_TRUE(j["tasks_per_node"].is_null());
  EXPECT_TRUE(j["step_id"].is_null());
}

TEST(ManyHosts, MpirunInsideASlurmAllocationNamesTheSlurmJob) {
  const Launcher l = detect_launcher(
      env_of({{"OMPI_COMM_WORLD_SIZE", "2"}, {"SLURM_JOB_ID", "5"}, {"SLURM_JOB_NODELIST", "n[1-2]"}}));
  EXPECT_EQ(l.name, "mpirun");
  EXPECT_EQ(l.job_id, "5");
  EXPECT_EQ(l.node_list, "n[1-2]");
}

TEST(ManyHosts, SrunWithoutPmixIsRefusedWithTheFix) {
  auto vars = kSrunStep;
  vars["SLURM_MPI_TYPE"] = "none";
  const auto refused = srun_without_pmi(env_of(vars));
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->rfind("launched by srun without PMIx: use srun --mpi=pmix", 0), 0u) << *refused;
  vars["SLURM_STEP_NUM_TASKS"] = "1";  // one task needs no wiring
  EXPECT_FALSE(srun_without_pmi(env_of(vars)).has_value());
  EXPECT_FALSE(srun_without_pmi(env_of({{"SLURM_JOB_ID", "5"}})).has_value());  // sbatch's script itself
}

TEST(ManyHosts, ATargetSomeHostsDoNotShareIsRefusedNamingThem) {
  EXPECT_TRUE(target_verdict("/mnt/x", {{"h1", true}, {"h1", true}, {"h2", true}}).ok());
  const Status s = target_verdict("/tmp", {{"h1", true}, {"h2", false}, {"h2", false}, {"h3", false}});
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("target /tmp is not the same folder on every host: ranks 1-3 on hosts h2, h3"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("target_scope: \"host\""), std::string::npos) << s.message();
}

TEST(ManyHosts, LostHostsAreEachNamedOnce) {
  EXPECT_EQ(lost_hosts(json{"h1", "h1", "h2", "h3"}, {3, 0, 1}), (json{"h1", "h3"}));
  EXPECT_EQ(lost_hosts(json{"h1"}, {5}), json::array());
}

Status parse(const std::string& text, const std::vector<std::string>& sets, Suite* out) {
  return parse_suite(text, "t.json", sets, out);
}

constexpr const char* kWrites =
    R"({"phases": [{"kind": "ingest", "name": "in", "file_size": "1MiB"}, {"kind": "checkpoint", "name": "ck",
        "params": 1e6}]})";
constexpr const char* kWithRestore =
    R"({"phases": [{"kind": "checkpoint", "name": "ck", "params": 1e6}, {"kind": "restore", "name": "rs"}]})";

TEST(ManyHosts, TargetScopeIsSharedByDefaultAndHostOnRequest) {
  Suite s;
  ASSERT_TRUE(parse(kWrites, {}, &s).ok());
  EXPECT_EQ(s.target_scope, TargetScope::kShared);
  ASSERT_TRUE(parse(kWrites, {"target_scope=host"}, &s).ok());
  EXPECT_EQ(s.target_scope, TargetScope::kHost);
  EXPECT_TRUE(check_suite_for_target(s, "/tmp", 2).ok());
}

TEST(ManyHosts, ABadTargetScopeNamesTheFieldAndTheExpectedForm) {
  Suite s;
  const Status st = parse(kWrites, {"target_scope=node"}, &s);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("target_scope: expected \"shared\""), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("got \"node\""), std::string::npos) << st.message();
}

TEST(ManyHosts, TargetScopeHostRefusesAPhaseThatReadsWhatOtherRanksMade) {
  Suite s;
  ASSERT_TRUE(parse(kWithRestore, {"target_scope=host"}, &s).ok());
  const Status st = check_suite_for_target(s, "/tmp", 2);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("phases.rs: a restore phase reads what other ranks made"), std::string::npos)
      << st.message();
}

}  // namespace
}  // namespace iofab
