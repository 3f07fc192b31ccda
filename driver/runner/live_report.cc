#include "driver/runner/live_report.h"

#include "harness/core/build_info.h"
#include "driver/runner/cluster_hosts.h"
#include "driver/runner/launch_info.h"

namespace iofab {

void fill_header(const RunHeader& h, const std::vector<std::string>& hosts, const std::vector<int>& lost,
                 Report* r) {
  const BuildInfo& bi = build_info();
  r->tool = {{"name", "iofab"},         {"version", bi.version},       {"git_sha", bi.git_sha},
             {"compiler", bi.compiler}, {"build_type", bi.build_type}, {"backends", bi.backends}};
  const ClusterHosts cluster = cluster_hosts(hosts);
  r->cluster = {{"ranks", h.comm.size()},           {"comm", h.comm.name()},
                {"comm_reason", h.comm_reason},     {"hosts", cluster.hosts},
                {"rank_hosts", cluster.rank_hosts}, {"lost_ranks", lost},
                {"report_rank", h.comm.rank()}};
  r->cluster["lost_hosts"] = lost_hosts(cluster.rank_hosts, lost);
  r->cluster["launch"] = launch_json(cluster.rank_hosts);
  r->target = to_json(h.target);
  r->target["run_folder"] = h.location;
  r->target["kept"] = h.keep;
  r->target["scope"] = target_scope_name(h.suite.target_scope);
  r->run = {
      {"id", h.run_id},
      {"start_time", h.started},
      {"duration_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - h.run_start).count()},
      {"command_line", h.command_line},
      {"suite",
       {{"name", h.suite.name},
        {"source", h.suite.source},
        {"sha256", h.suite.sha256},
        {"sets", h.sets},
        {"document", h.suite.document}}}};
}

void LiveReport::begin(std::string name, std::string kind) {
  std::lock_guard<std::mutex> lock(mu_);
  running_name_ = std::move(name);
  running_kind_ = std::move(kind);
}

void LiveReport::add(std::vector<PhaseReport> phases) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& pr : phases) report_->phases.push_back(std::move(pr));
  running_name_.clear();
}

Report LiveReport::partial(const std::vector<int>& lost, PhaseStatus cut_status,
                           const std::string& cut_reason, const std::string& warning) const {
  Report r;
  PhaseReport cur;
  {
    std::lock_guard<std::mutex> lock(mu_);
    r.phases = report_->phases;
    cur.name = running_name_;
    cur.kind = running_kind_;
  }
  if (!cur.name.empty()) {
    cur.status = cut_status;
    cur.reason = cut_reason;
    r.phases.push_back(std::move(cur));
  }
  fill_header(header_, hosts_, lost, &r);
  r.warnings.push_back(warning);
  finalize_verdict(&r);
  return r;
}

}  // namespace iofab
