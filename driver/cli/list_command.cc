// `iofab list`: what this machine offers iofab (engines, MPI, GPUs, RDMA
// devices and ports, the GPU/NIC topology, the target's filesystem).
#include <algorithm>
#include <filesystem>

#include "driver/cli/commands.h"
#include "harness/core/build_info.h"
#include "harness/core/json_text.h"
#include "harness/core/units.h"
#include "harness/engines/engine.h"
#include "harness/fs/stale_run_dirs.h"
#include "harness/fs/target.h"
#include "harness/gpu/devices.h"
#include "harness/gpu/pci_topology.h"
#include "harness/rdma/rdma_sysfs.h"

namespace iofab {

using nlohmann::json;

namespace {

// The section of `iofab list --json` on RDMA devices.
constexpr const char* kRdmaSection = "rdma";  // not a phase kind: a section of list's output

// `iofab list` gathers everything into one JSON value; the text form is printed
// from it, so the two never disagree.

json pci_json(const PciLocation& loc) {
  return {{"pci_bus_id", loc.bus_id}, {"pci_path", loc.path}, {"numa_node", loc.numa_node}};
}

json list_gpus(std::vector<PciLocation>* locs) {
  json gpus = json::array();
  for (const auto& g : list_cuda_devices()) {
    json d = {
        {"index", g.index}, {"name", g.name}, {"memory_bytes", g.memory_bytes}, {"pci_bus_id", g.pci_bus_id}};
    PciLocation loc;
    Status s = locate_pci_bus_id("/", g.pci_bus_id, &loc);
    if (s.ok()) {
      d.update(pci_json(loc));
    } else {
      d["pci_error"] = s.message();
    }
    locs->push_back(s.ok() ? loc : PciLocation{});
    gpus.push_back(d);
  }
  return gpus;
}

json list_nics(std::string* status, std::vector<PciLocation>* locs) {
  std::vector<RdmaDevice> devs;
  Status s = read_rdma_devices(kSysfsInfinibandRoot, &devs);
  if (!s.ok()) {
    *status = s.message();
  } else if (devs.empty()) {
    *status = std::string("none (no ") + kSysfsInfinibandRoot + " entries)";
  } else {
    *status = std::to_string(devs.size()) + " RDMA device" + (devs.size() == 1 ? "" : "s");
  }
  json nics = json::array();
  for (const RdmaDevice& dev : devs) {
    json d = {{"name", dev.name},     {"node_type", dev.node_type}, {"node_guid", dev.node_guid},
              {"fw_ver", dev.fw_ver}, {"hca_type", dev.hca_type},   {"board_id", dev.board_id}};
    PciLocation loc;
    Status ps = locate_class_device("/", std::string(kSysfsInfinibandRoot) + "/" + dev.name, &loc);
    if (ps.ok()) {
      d.update(pci_json(loc));
    } else {
      d["pci_error"] = ps.message();
    }
    locs->push_back(ps.ok() ? loc : PciLocation{});
    json ports = json::array();
    for (const RdmaPort& p : dev.ports) {
      json gids = json::array();
      for (const RdmaGid& g : p.gids) {
        gids.push_back({{"index", g.index}, {"gid", g.value}, {"type", g.type}, {"netdev", g.netdev}});
      }
      ports.push_back({{"number", p.number},
                       {"state", p.state},
                       {"phys_state", p.phys_state},
                       {"link_layer", p.link_layer},
                       {"lid", p.lid},
                       {"rate", p.rate},
                       {"gids", gids}});
    }
    d["ports"] = ports;
    nics.push_back(d);
  }
  return nics;
}

// Each GPU against each NIC, nvidia-smi topo's terms; why not, when it cannot be derived.
json list_topology(const json& gpus, const std::vector<PciLocation>& gpu_locs, const json& nics,
                   const std::vector<PciLocation>& nic_locs, std::string* status) {
  json pairs = json::array();
  if (gpus.empty() || nics.empty()) {
    *status = gpus.empty() && nics.empty() ? "no CUDA device and no RDMA device"
              : gpus.empty()               ? "no CUDA device"
                                           : "no RDMA device";
    return pairs;
  }
  *status = "from sysfs PCI paths (NVLink is not visible there)";
  for (size_t g = 0; g < gpu_locs.size(); ++g) {
    for (size_t n = 0; n < nic_locs.size(); ++n) {
      json p = {{"gpu", gpus[g]["index"]}, {"nic", nics[n]["name"]}};
      if (gpu_locs[g].path.empty() || nic_locs[n].path.empty()) {
        p["relation"] = nullptr;
        p["reason"] = gpu_locs[g].path.empty() ? "GPU's PCI path unknown" : "NIC is not on PCI";
      } else {
        p["relation"] = std::string(pci_relation_name(classify_pci_relation(gpu_locs[g], nic_locs[n])));
      }
      pairs.push_back(p);
    }
  }
  return pairs;
}

json discover(const std::string& target) {
  json engines = json::array();
  for (const auto& e : list_engines()) {
    engines.push_back({{"name", e.name},
                       {"description", e.description},
                       {"built", e.built},
                       {"usable", e.usable},
                       {"reason", e.reason}});
  }
  std::vector<PciLocation> gpu_locs;
  std::vector<PciLocation> nic_locs;
  json gpus = list_gpus(&gpu_locs);
  std::string rdma_status;
  json nics = list_nics(&rdma_status, &nic_locs);
  std::string topo_status;
  json topo = list_topology(gpus, gpu_locs, nics, nic_locs, &topo_status);
  json t = {{"path", target}};
  TargetInfo info;
  Status st = describe_target(target, &info);
  if (!st.ok()) {
    t["error"] = st.message();
  } else {
    t.update({{"fs_type", info.fs_type},
              {"device", info.device},
              {"mount_point", info.mount_point},
              {"block_device", info.block_device},
              {"mount_source", info.mount_source},
              {"mount_options", info.mount_options},
              {"devices", info.devices},
              {"access", info.access},
              {"free_bytes", info.free_bytes}});
  }
  // Leftovers of killed runs (names only: their sizes need a walk of every file; `iofab clean` shows them).
  std::vector<StaleRunDir> stale;
  json names = json::array();
  if (find_stale_run_dirs(target, false, &stale).ok()) {
    for (const auto& s : stale) {
      if (!s.kept) names.push_back(s.name);  // a --keep run's folder is a result, not a leftover
    }
  }
  t["stale_run_folders"] = names;
  return {{"tool",
           {{"version", build_info().version},
            {"git_sha", build_info().git_sha},
            {"backends", build_info().backends}}},
          {"engines", engines},
          {"mpi", {{"built", mpi_built()}, {"launched_by_mpi_launcher", launched_by_mpi_launcher()}}},
          {"cuda", {{"status", cuda_status()}, {"devices", gpus}}},
          {kRdmaSection, {{"status", rdma_status}, {"devices", nics}}},
          {"topology", {{"status", topo_status}, {"pairs", topo}}},
          {"target", t}};
}

std::string numa_text(const json& d) {
  if (!d.contains("numa_node")) return "";
  const int n = d["numa_node"].get<int>();
  return n < 0 ? "  numa ?" : "  numa " + std::to_string(n);
}

std::string pci_text(const json& d) {
  if (d.contains("pci_path")) return numa_text(d) + "  " + d["pci_path"].get<std::string>();
  if (d.contains("pci_error")) return "  (PCI location unknown: " + d["pci_error"].get<std::string>() + ")";
  return "";
}

void print_rdma(const json& nics, std::ostream& out) {
  for (const json& d : nics) {
    out << "  " << d["name"].get<std::string>();
    if (!d["node_type"].get<std::string>().empty()) out << "  " << d["node_type"].get<std::string>();
    if (!d["fw_ver"].get<std::string>().empty()) out << "  fw " << d["fw_ver"].get<std::string>();
    out << pci_text(d) << "\n";
    for (const json& p : d["ports"]) {
      out << "    port " << p["number"].get<int>() << ": " << p["state"].get<std::string>() << ", "
          << p["phys_state"].get<std::string>() << ", " << p["link_layer"].get<std::string>();
      if (p["lid"].get<uint32_t>() != 0) {
        char lid[16];
        std::snprintf(lid, sizeof lid, "0x%x", p["lid"].get<uint32_t>());
        out << ", lid " << lid;
      }
      if (!p["rate"].get<std::string>().empty()) out << ", " << p["rate"].get<std::string>();
      out << "\n";
      for (const json& g : p["gids"]) {
        out << "      gid " << g["index"].get<int>() << "  " << g["gid"].get<std::string>();
        if (!g["type"].get<std::string>().empty()) out << "  " << g["type"].get<std::string>();
        if (!g["netdev"].get<std::string>().empty()) out << "  " << g["netdev"].get<std::string>();
        out << "\n";
      }
    }
  }
}

// nvidia-smi topo -m's layout: a row per GPU, a column per NIC.
void print_topology(const json& j, std::ostream& out) {
  const json& topo = j["topology"];
  out << "GPU/NIC topology: ";
  if (topo["pairs"].empty()) {
    out << "none (" << topo["status"].get<std::string>() << ")\n";
    return;
  }
  out << topo["status"].get<std::string>() << "\n";
  size_t width = 6;
  for (const json& n : j[kRdmaSection]["devices"])
    width = std::max(width, n["name"].get<std::string>().size() + 2);
  auto cell = [&](const std::string& s) {
    return s + std::string(width > s.size() ? width - s.size() : 1, ' ');
  };
  out << "  " << cell("");
  for (const json& n : j[kRdmaSection]["devices"]) out << cell(n["name"].get<std::string>());
  out << "\n";
  for (const json& g : j["cuda"]["devices"]) {
    out << "  " << cell("GPU" + std::to_string(g["index"].get<int>()));
    for (const json& p : topo["pairs"]) {
      if (p["gpu"] != g["index"]) continue;
      out << cell(p["relation"].is_null() ? "?" : p["relation"].get<std::string>());
    }
    out << "\n";
  }
  out << "  PIX: at most one PCIe switch; PXB: several switches; PHB: through a host bridge (CPU); NODE: "
         "between host bridges of one NUMA node; SYS: across NUMA nodes\n";
}

}  // namespace

int cmd_list(const std::string& target, bool as_json, std::ostream& out) {
  const json j = discover(target);
  if (as_json) {
    out << json_text(j, 2) << "\n";
    return 0;
  }
  out << "iofab " << build_info().version << " (" << build_info().git_sha << ")\n";
  out << "backends built: " << build_info().backends << "\n\nengines:\n";
  for (const json& e : j["engines"]) {
    out << "  " << e["name"].get<std::string>() << (e["usable"].get<bool>() ? "  usable" : "  not usable")
        << "  " << e["description"].get<std::string>();
    if (!e["usable"].get<bool>()) out << " (" << e["reason"].get<std::string>() << ")";
    out << "\n";
  }
  out << "\nMPI: " << (mpi_built() ? "built" : "not built");
  out << (launched_by_mpi_launcher() ? ", launched by an MPI launcher"
                                     : ", not launched by mpirun/srun: world size 1")
      << "\n";
  out << "CUDA: " << j["cuda"]["status"].get<std::string>() << "\n";
  for (const json& g : j["cuda"]["devices"]) {
    out << "  [" << g["index"].get<int>() << "] " << g["name"].get<std::string>() << " "
        << units::format_bytes(g["memory_bytes"].get<double>()) << " " << g["pci_bus_id"].get<std::string>()
        << pci_text(g) << "\n";
  }
  out << "RDMA devices: " << j[kRdmaSection]["status"].get<std::string>() << "\n";
  print_rdma(j[kRdmaSection]["devices"], out);
  print_topology(j, out);
  const json& t = j["target"];
  out << "\ntarget " << target << ": ";
  if (t.contains("error")) {
    out << t["error"].get<std::string>() << "\n";
  } else {
    out << t["fs_type"].get<std::string>() << " on " << t["device"].get<std::string>() << " (mounted at "
        << t["mount_point"].get<std::string>() << ", " << units::format_bytes(t["free_bytes"].get<double>())
        << " free"
        << (t["block_device"].get<std::string>().empty()
                ? ""
                : ", block device " + t["block_device"].get<std::string>())
        << ")\n";
    // What a run's figures can be proved by there, before anyone runs one.
    const bool nfs = t["fs_type"].get<std::string>().rfind("nfs", 0) == 0;
    out << "  access " << t["access"].get<std::string>() << ": "
        << (!t["devices"].empty() ? "bytes are counted in /proc/diskstats"
            : nfs                 ? "the NFS client counts bytes in /proc/self/mountstats"
                                  : "nothing counts its bytes: figures will be marked unverified")
        << "\n";
  }
  if (!t["stale_run_folders"].empty()) {
    out << "stale run folders (no live run holds them): ";
    for (size_t i = 0; i < t["stale_run_folders"].size(); ++i) {
      out << (i ? ", " : "") << t["stale_run_folders"][i].get<std::string>();
    }
    out << "\n  remove them with: iofab clean --target " << target << "\n";
  }
  return 0;
}

}  // namespace iofab
