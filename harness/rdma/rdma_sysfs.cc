#include "harness/rdma/rdma_sysfs.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace iofab {
namespace {

namespace fs = std::filesystem;

// First line of a sysfs file without its newline; "" when absent or unreadable
// (sysfs answers EINVAL for the type of an unused GID entry, which is no error here).
std::string read_line(const fs::path& p) {
  std::ifstream f(p);
  std::string line;
  if (!f || !std::getline(f, line)) return "";
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

// "4: ACTIVE" -> 4, "ACTIVE"
void split_state(const std::string& text, int* code, std::string* name) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) {
    *code = 0;
    *name = text;
    return;
  }
  *code = std::atoi(text.substr(0, colon).c_str());
  size_t start = colon + 1;
  while (start < text.size() && text[start] == ' ') ++start;
  *name = text.substr(start);
}

bool is_zero_gid(const std::string& v) {
  return v.empty() || std::all_of(v.begin(), v.end(), [](char c) { return c == '0' || c == ':'; });
}

// Numeric entries of a folder, sorted numerically.
std::vector<int> numbered_entries(const fs::path& dir) {
  std::vector<int> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (!n.empty() && std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      out.push_back(std::atoi(n.c_str()));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

RdmaPort read_port(const fs::path& dir, int number) {
  RdmaPort p;
  p.number = number;
  split_state(read_line(dir / "state"), &p.state_code, &p.state);
  int phys = 0;
  split_state(read_line(dir / "phys_state"), &phys, &p.phys_state);
  p.link_layer = read_line(dir / "link_layer");
  p.lid = static_cast<uint32_t>(std::strtoul(read_line(dir / "lid").c_str(), nullptr, 0));
  p.rate = read_line(dir / "rate");
  for (int i : numbered_entries(dir / "gids")) {
    RdmaGid g;
    g.index = i;
    g.value = read_line(dir / "gids" / std::to_string(i));
    if (is_zero_gid(g.value)) continue;
    g.type = read_line(dir / "gid_attrs" / "types" / std::to_string(i));
    g.netdev = read_line(dir / "gid_attrs" / "ndevs" / std::to_string(i));
    p.gids.push_back(std::move(g));
  }
  return p;
}

}  // namespace

bool RdmaGid::is_ipv4_mapped() const {
  // 0000:0000:0000:0000:0000:ffff:xxxx:xxxx
  return value.size() == 39 && value.compare(0, 30, "0000:0000:0000:0000:0000:ffff:") == 0;
}

std::string RdmaGid::ipv4() const {
  if (!is_ipv4_mapped()) return "";
  const unsigned long hi = std::strtoul(value.substr(30, 4).c_str(), nullptr, 16);
  const unsigned long lo = std::strtoul(value.substr(35, 4).c_str(), nullptr, 16);
  return std::to_string(hi >> 8) + "." + std::to_string(hi & 0xff) + "." + std::to_string(lo >> 8) + "." +
         std::to_string(lo & 0xff);
}

Status read_rdma_devices(const std::string& root, std::vector<RdmaDevice>* out) {
  out->clear();
  std::error_code ec;
  if (!fs::exists(root, ec)) return Status::Ok();
  fs::directory_iterator it(root, ec);
  if (ec) return Status::IoError("cannot list " + root + ": " + ec.message());
  for (const auto& e : it) {
    const fs::path dir = e.path();
    RdmaDevice d;
    d.name = dir.filename().string();
    d.node_guid = read_line(dir / "node_guid");
    d.fw_ver = read_line(dir / "fw_ver");
    int type_code = 0;
    split_state(read_line(dir / "node_type"), &type_code, &d.node_type);
    d.hca_type = read_line(dir / "hca_type");
    d.board_id = read_line(dir / "board_id");
    for (int n : numbered_entries(dir / "ports"))
      d.ports.push_back(read_port(dir / "ports" / std::to_string(n), n));
    out->push_back(std::move(d));
  }
  std::sort(out->begin(), out->end(),
            [](const RdmaDevice& a, const RdmaDevice& b) { return a.name < b.name; });
  return Status::Ok();
}

std::optional<int> pick_roce_gid(const std::vector<RdmaGid>& gids) {
  for (const auto& g : gids) {
    if (g.is_roce_v2() && g.is_ipv4_mapped()) return g.index;
  }
  for (const auto& g : gids) {
    if (g.is_roce_v2()) return g.index;
  }
  if (!gids.empty()) return gids.front().index;
  return std::nullopt;
}

bool select_rdma_port(const std::vector<RdmaDevice>& devices, const std::string& device, int port,
                      const RdmaDevice** dev_out, const RdmaPort** port_out, std::string* reason) {
  if (devices.empty()) {
    *reason = "no RDMA device (no /sys/class/infiniband entries)";
    return false;
  }
  std::string names;
  for (const auto& d : devices) names += (names.empty() ? "" : ", ") + d.name;
  std::string inactive;
  std::string port_reason;
  bool named_found = false;
  for (const auto& d : devices) {
    if (!device.empty() && d.name != device) continue;
    named_found = true;
    bool has_port = false;
    for (const auto& p : d.ports) {
      if (port != 0 && p.number != port) continue;
      has_port = true;
      if (p.active()) {
        *dev_out = &d;
        *port_out = &p;
        return true;
      }
      if (port != 0 && port_reason.empty()) {
        port_reason = "port " + std::to_string(port) + " of " + d.name + " is " +
                      (p.state.empty() ? "not active" : p.state);
      }
    }
    if (port != 0 && !has_port && port_reason.empty())
      port_reason = "no port " + std::to_string(port) + " on " + d.name;
    inactive += (inactive.empty() ? "" : ", ") + d.name;
  }
  if (!named_found) {
    *reason = "no RDMA device named " + device + " (found: " + names + ")";
  } else if (!port_reason.empty()) {
    *reason = port_reason;
  } else {
    *reason = "no active port on " + inactive;
  }
  return false;
}

}  // namespace iofab
