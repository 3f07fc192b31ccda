#include "driver/runner/host_info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "harness/gpu/devices.h"

namespace iofab {

nlohmann::json describe_host() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  utsname u{};
  uname(&u);
  std::string os;
  std::ifstream rel("/etc/os-release");
  for (std::string line; std::getline(rel, line);) {
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      os = line.substr(12);
      if (os.size() >= 2 && os.front() == '"') os = os.substr(1, os.size() - 2);
    }
  }
  nlohmann::json rdma = nlohmann::json::array();
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/sys/class/infiniband", ec)) {
    rdma.push_back(e.path().filename().string());
  }
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : list_cuda_devices()) gpus.push_back({{"index", g.index}, {"name", g.name}, {"memory_bytes", g.memory_bytes}, {"pci_bus_id", g.pci_bus_id}});
  return {{"hostname", host},
          {"cpus", std::thread::hardware_concurrency()},
          {"memory_bytes", static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE))},
          {"kernel", std::string(u.sysname) + " " + u.release},
          {"machine", u.machine},
          {"os", os},
          {"cuda_devices", gpus},
          {"rdma_devices", rdma}};
}

}  // namespace iofab
