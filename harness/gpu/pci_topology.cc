#include "harness/gpu/pci_topology.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

namespace iofab {

namespace {

namespace fs = std::filesystem;

bool all_hex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (std::isxdigit(static_cast<unsigned char>(c)) == 0) return false;
  }
  return true;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "pci0000:00", "pci10000:00": a root bus (host bridge), not a PCI function.
bool is_root_bus(std::string_view comp) { return comp.size() > 3 && comp.substr(0, 3) == "pci"; }

// "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0" -> its components after "/sys/devices".
std::vector<std::string> components(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    const size_t j = path.find('/', i);
    const size_t end = j == std::string_view::npos ? path.size() : j;
    if (end > i) out.emplace_back(path.substr(i, end - i));
    i = end + 1;
  }
  if (out.size() >= 2 && out[0] == "sys" && out[1] == "devices") out.erase(out.begin(), out.begin() + 2);
  return out;
}

// The root bus and the chain of PCI functions below it, the device last.
struct TreePath {
  std::string root;
  std::vector<std::string> chain;
};

TreePath tree_path(std::string_view path) {
  TreePath t;
  for (std::string& c : components(path)) {
    if (t.root.empty()) {
      if (is_root_bus(c)) t.root = std::move(c);
      continue;
    }
    t.chain.push_back(std::move(c));
  }
  return t;
}

int read_numa_node(const fs::path& dev) {
  std::ifstream in(dev / "numa_node");
  int n = -1;
  if (!(in >> n)) return -1;
  return n < 0 ? -1 : n;
}

// Resolves link (a sysfs symlink to the device's folder) and fills out.
Status locate_link(const std::string& sysfs_root, const std::string& link, PciLocation* out) {
  const fs::path root = fs::path(sysfs_root.empty() ? "/" : sysfs_root);
  std::error_code ec;
  const fs::path real = fs::canonical(root / fs::path(link).relative_path(), ec);
  if (ec) return Status::Unavailable(link + ": " + ec.message());
  const fs::path real_root = fs::canonical(root, ec);
  if (ec) return Status::Unavailable("sysfs root " + root.string() + ": " + ec.message());
  // Report the path as on the machine, whatever root the tree was read under.
  std::string shown = real.string();
  const std::string prefix = real_root.string();
  if (prefix != "/" && shown.compare(0, prefix.size(), prefix) == 0) shown = shown.substr(prefix.size());
  const TreePath t = tree_path(shown);
  if (t.root.empty() || t.chain.empty()) {
    return Status::Unavailable(link + " resolves to " + shown + ", not a PCI device");
  }
  const std::optional<std::string> id = normalize_pci_bus_id(t.chain.back());
  if (!id) return Status::Unavailable(link + " resolves to " + shown + ", not a PCI function");
  out->bus_id = *id;
  out->path = shown;
  out->numa_node = read_numa_node(real);
  return Status::Ok();
}

}  // namespace

std::optional<std::string> normalize_pci_bus_id(std::string_view bus_id) {
  // DOMAIN:BUS:DEV.FN, or BUS:DEV.FN (domain 0).
  const size_t dot = bus_id.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const std::string_view fn = bus_id.substr(dot + 1);
  std::string_view head = bus_id.substr(0, dot);
  const size_t c2 = head.rfind(':');
  if (c2 == std::string_view::npos) return std::nullopt;
  const std::string_view dev = head.substr(c2 + 1);
  head = head.substr(0, c2);
  const size_t c1 = head.rfind(':');
  const std::string_view bus = c1 == std::string_view::npos ? head : head.substr(c1 + 1);
  const std::string_view domain = c1 == std::string_view::npos ? std::string_view("0") : head.substr(0, c1);
  if (!all_hex(domain) || !all_hex(bus) || !all_hex(dev) || !all_hex(fn)) return std::nullopt;
  if (domain.size() > 8 || bus.size() > 2 || dev.size() > 2 || fn.size() != 1 || fn[0] > '7')
    return std::nullopt;
  const unsigned long d = std::stoul(std::string(domain), nullptr, 16);
  const unsigned long b = std::stoul(std::string(bus), nullptr, 16);
  const unsigned long v = std::stoul(std::string(dev), nullptr, 16);
  if (v > 0x1f) return std::nullopt;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04lx:%02lx:%02lx.%c", d, b, v, fn[0]);
  return lower(buf);
}

Status locate_pci_bus_id(const std::string& sysfs_root, std::string_view bus_id, PciLocation* out) {
  const std::optional<std::string> id = normalize_pci_bus_id(bus_id);
  if (!id) {
    return Status::Invalid("PCI bus id \"" + std::string(bus_id) + "\": expected DOMAIN:BUS:DEVICE.FUNCTION");
  }
  return locate_link(sysfs_root, "/sys/bus/pci/devices/" + *id, out);
}

Status locate_class_device(const std::string& sysfs_root, std::string_view class_dir, PciLocation* out) {
  std::string link(class_dir);
  while (!link.empty() && link.back() == '/') link.pop_back();
  return locate_link(sysfs_root, link + "/device", out);
}

PciRelation classify_pci_relation(const PciLocation& a, const PciLocation& b) {
  const TreePath ta = tree_path(a.path);
  const TreePath tb = tree_path(b.path);
  if (ta.root == tb.root && ta.chain == tb.chain) return PciRelation::kSame;
  if (ta.root != tb.root || ta.root.empty()) {
    return a.numa_node == b.numa_node ? PciRelation::kNode : PciRelation::kSys;
  }
  // The bridges above each device: every chain element but the device itself.
  const size_t na = ta.chain.empty() ? 0 : ta.chain.size() - 1;
  const size_t nb = tb.chain.empty() ? 0 : tb.chain.size() - 1;
  size_t common = 0;
  while (common < na && common < nb && ta.chain[common] == tb.chain[common]) ++common;
  // Turning around at the root port (or above it) is turning around in the root complex.
  if (common <= 1) return PciRelation::kPhb;
  // Below the root port (index 0), a switch is an upstream port (odd index) and its
  // downstream ports (the even index after it); name each switch by its upstream port.
  std::set<std::string> switches;
  auto add_route = [&](const TreePath& t, size_t bridges) {
    for (size_t i = common - 1; i < bridges; ++i) {
      if (i == 0) continue;
      switches.insert(t.chain[i % 2 == 1 ? i : i - 1]);
    }
  };
  add_route(ta, na);
  add_route(tb, nb);
  return switches.size() <= 1 ? PciRelation::kPix : PciRelation::kPxb;
}

std::string_view pci_relation_name(PciRelation r) {
  switch (r) {
    case PciRelation::kSame:
      return "X";
    case PciRelation::kPix:
      return "PIX";
    case PciRelation::kPxb:
      return "PXB";
    case PciRelation::kPhb:
      return "PHB";
    case PciRelation::kNode:
      return "NODE";
    case PciRelation::kSys:
      return "SYS";
  }
  return "?";
}

}  // namespace iofab
