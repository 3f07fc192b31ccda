// The report as the run builds it: the header every report carries (the tool, the run, the cluster, the
// target), the phases so far under a lock, and the report as it would stand if this process died now (the
// running phase cut short, the hosts as shared at the start), which the stop watchdog and the report
// courier write from other threads.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "harness/comm/comm.h"
#include "harness/fs/target.h"
#include "harness/results/report.h"
#include "driver/suite/suite.h"

namespace iofab {

// What every report carries besides its phases. References: the run outlives every report it fills.
struct RunHeader {
  const Comm& comm;
  const std::string& comm_reason;
  const TargetInfo& target;
  std::string location;  // the run's place below the target
  bool keep = false;
  std::string run_id;
  std::string started;  // RFC 3339
  std::chrono::steady_clock::time_point run_start;
  const std::string& command_line;
  const Suite& suite;
  const std::vector<std::string>& sets;
};

// hosts: every rank's describe_host text, in rank order (or this host's alone); lost: the lost ranks.
void fill_header(const RunHeader& header, const std::vector<std::string>& hosts, const std::vector<int>& lost,
                 Report* report);

class LiveReport {
 public:
  // report: where the finished phases go; hosts: every rank's describe_host text, in rank order, as
  // shared at the start (or this host's alone).
  LiveReport(Report* report, const RunHeader& header, std::vector<std::string> hosts)
      : report_(report), header_(header), hosts_(std::move(hosts)) {}

  // A step starts: its name (a phase's or a group's) and kind ("concurrent" for a group).
  void begin(std::string name, std::string kind);
  // A step's phases are done (or were never started); none is running.
  void add(std::vector<PhaseReport> phases);
  // The phases so far and the running one (if any) with cut_status and cut_reason, the header with the
  // hosts shared at the start and lost, warning first among the warnings, the verdict finalized.
  Report partial(const std::vector<int>& lost, PhaseStatus cut_status, const std::string& cut_reason,
                 const std::string& warning) const;

 private:
  Report* report_;
  const RunHeader& header_;
  std::vector<std::string> hosts_;
  mutable std::mutex mu_;
  std::string running_name_, running_kind_;
};

}  // namespace iofab
