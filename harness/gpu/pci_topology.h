// PCI topology from sysfs: where a GPU or a NIC sits in the PCI tree, its
// NUMA node, and how two devices are connected, in nvidia-smi topo's terms.
//
// Everything is read under a sysfs root ("/" on a real machine; a folder
// holding a fake sys/ tree in tests), so the logic is testable without the
// hardware. Paths are reported as on the real machine, e.g.
// "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0", whatever the root.
//
// Free functions on plain values: safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "harness/core/status.h"

namespace iofab {

struct PciLocation {
  std::string bus_id;  // "0000:01:00.0": the device's own PCI function
  std::string path;    // resolved, from "/sys/devices/..."
  int numa_node = -1;  // -1: the kernel does not know (or a single-node machine)
};

// A PCI bus id as sysfs names it: domain of at least 4 hex digits, lower
// case. CUDA writes "00000000:3B:00.0", sysfs "0000:3b:00.0". nullopt when
// the text is not DOMAIN:BUS:DEVICE.FUNCTION (or BUS:DEVICE.FUNCTION).
std::optional<std::string> normalize_pci_bus_id(std::string_view bus_id);

// The device with this bus id, via <root>/sys/bus/pci/devices/<id>.
Status locate_pci_bus_id(const std::string& sysfs_root, std::string_view bus_id, PciLocation* out);

// The PCI device behind a class device, via <root>/<class_dir>/device, e.g.
// class_dir "/sys/class/infiniband/mlx5_0". Unavailable when that device is
// not on PCI (a software RDMA device such as rxe has no PCI parent).
Status locate_class_device(const std::string& sysfs_root, std::string_view class_dir, PciLocation* out);

// How traffic between two devices travels, best first (nvidia-smi topo -m):
//   kSame  X     the same PCI function
//   kPix   PIX   through at most one PCIe switch (or bridge)
//   kPxb   PXB   through several PCIe switches, not through a host bridge
//   kPhb   PHB   through a PCIe host bridge (the CPU's root complex)
//   kNode  NODE  between host bridges of one NUMA node
//   kSys   SYS   between NUMA nodes (across the CPUs' interconnect)
// NVLink (NV#) is not visible in sysfs and is not derived here.
enum class PciRelation { kSame, kPix, kPxb, kPhb, kNode, kSys };

// From the two resolved paths and NUMA nodes. Devices under different root
// buses ("pci0000:00" vs "pci0000:80") are NODE when both NUMA nodes are equal
// (or both unknown), else SYS. Under one root bus: PHB when they share no PCI
// bridge below it, or only the root port; otherwise the PCIe switches the
// route crosses are counted (an upstream port and its downstream ports are one
// switch, taken in pairs below the root port as PCIe lays them out): one is
// PIX, more is PXB.
PciRelation classify_pci_relation(const PciLocation& a, const PciLocation& b);

// "X", "PIX", "PXB", "PHB", "NODE", "SYS".
std::string_view pci_relation_name(PciRelation r);

}  // namespace iofab
