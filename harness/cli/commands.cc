#include "harness/cli/commands.h"

#include <filesystem>

#include "harness/core/build_info.h"
#include "harness/engines/engine.h"
#include "harness/fs/target.h"
#include "harness/gpu/devices.h"
#include "harness/suite/suite.h"
#include "harness/suite/units.h"
#include "reports/console_report.h"
#include "reports/json_report.h"

namespace iofab {

using nlohmann::json;

int cmd_run(Comm& comm, RunArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.target.empty()) args.options.target = args.target;
  Report report;
  Status st = run_suite(comm, args.options, &report);
  if (!st.ok()) {
    if (comm.rank() == 0) err << "iofab: " << st.message() << "\n";
    return st.code() == Status::Code::kInvalidArgument ? 2 : 3;
  }
  if (comm.rank() != 0) return 0;
  const std::string path =
      args.out.empty() ? "iofab-report-" + report.run.value("id", std::string("run")) + ".json" : args.out;
  Status w = write_file_atomic(path, report_to_json(report).dump(2) + "\n");
  if (!args.options.quiet) write_console_summary(report, out);
  if (!w.ok()) {
    err << "iofab: cannot write the report: " << w.message() << "\n";
    return 3;
  }
  std::error_code ec;
  auto abs = std::filesystem::absolute(path, ec);
  out << "report: " << (ec ? path : abs.string()) << "\n";
  return exit_code_for(report);
}

int cmd_validate(const std::string& suite_path, const std::vector<std::string>& sets, std::ostream& out,
                 std::ostream& err) {
  Suite suite;
  Status st = load_suite(suite_path, sets, &suite);
  if (!st.ok()) {
    err << "iofab: " << st.message() << "\n";
    return 2;
  }
  json phases = json::array();
  for (const auto& p : suite.phases) {
    json checks = json::array();
    for (const auto& c : p.checks) {
      checks.push_back({{"name", c.name}, {"metric", c.metric}, {"op", check_op_text(c.op)}, {"threshold", c.threshold}});
    }
    phases.push_back({{"name", p.name}, {"kind", p.kind->name}, {"params", p.params}, {"checks", checks}});
  }
  json j = {{"suite", suite.source}, {"name", suite.name}, {"sha256", suite.sha256}, {"phases", phases}};
  if (suite.target) j["target"] = *suite.target;
  out << j.dump(2) << "\n";
  err << "suite OK: " << suite.phases.size() << " phase" << (suite.phases.size() == 1 ? "" : "s") << "\n";
  return 0;
}

int cmd_list(const std::string& target, std::ostream& out) {
  out << "iofab " << build_info().version << " (" << build_info().git_sha << ")\n";
  out << "backends built: " << build_info().backends << "\n\nengines:\n";
  for (const auto& e : list_engines()) {
    out << "  " << e.name << (e.usable ? "  usable" : "  not usable") << "  " << e.description;
    if (!e.usable) out << " (" << e.reason << ")";
    out << "\n";
  }
  out << "\nMPI: " << (mpi_built() ? "built" : "not built");
  out << (launched_by_mpi_launcher() ? ", launched by an MPI launcher" : ", not launched by mpirun/srun: world size 1")
      << "\n";
  out << "CUDA: " << cuda_status() << "\n";
  for (const auto& g : list_cuda_devices()) {
    out << "  [" << g.index << "] " << g.name << " " << units::format_bytes(static_cast<double>(g.memory_bytes)) << " "
        << g.pci_bus_id << "\n";
  }
  std::error_code ec;
  std::vector<std::string> rdma;
  for (const auto& e : std::filesystem::directory_iterator("/sys/class/infiniband", ec)) {
    rdma.push_back(e.path().filename().string());
  }
  out << "RDMA devices: " << (rdma.empty() ? "none (no /sys/class/infiniband entries)" : "") << "\n";
  for (const auto& d : rdma) out << "  " << d << "\n";
  TargetInfo info;
  Status st = describe_target(target, &info);
  out << "\ntarget " << target << ": ";
  if (!st.ok()) {
    out << st.message() << "\n";
  } else {
    out << info.fs_type << " on " << info.device << " (mounted at " << info.mount_point << ", "
        << units::format_bytes(static_cast<double>(info.free_bytes)) << " free"
        << (info.block_device.empty() ? "" : ", block device " + info.block_device) << ")\n";
  }
  return 0;
}

}  // namespace iofab
