#include "harness/gpu/pci_topology.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "test_util.h"

namespace iofab {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

// A fake sysfs tree laid out as the kernel lays out a two-socket GPU server:
//
//   pci0000:00 (NUMA 0) - root port 00:01.0 - switch 01:00.0 - 02:08.0 - GPU 03:00.0
//                                                            - 02:10.0 - NIC 04:00.0
//                                                            - 02:18.0 - switch 05:00.0 - 06:00.0 - GPU
//                                                            07:00.0
//                       - root port 00:02.0 - NIC 08:00.0
//   pci0000:40 (NUMA 0) - root port 40:01.0 - NIC 41:00.0
//   pci0000:80 (NUMA 1) - root port 80:01.0 - GPU 81:00.0
class FakeSysfs {
 public:
  FakeSysfs() {
    device("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:03:00.0", 0);
    device("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:10.0/0000:04:00.0", 0);
    device("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:18.0/0000:05:00.0/0000:06:00.0/0000:07:00.0", 0);
    device("pci0000:00/0000:00:02.0/0000:08:00.0", 0);
    device("pci0000:40/0000:40:01.0/0000:41:00.0", 0);
    device("pci0000:80/0000:80:01.0/0000:81:00.0", 1);
    // A class device the way the kernel shows an RDMA NIC: the class entry links into the
    // device's own folder, whose "device" links back up to the PCI function.
    const std::string nic = "pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:10.0/0000:04:00.0";
    fs::create_directories(root() + "/sys/devices/" + nic + "/infiniband/mlx5_0");
    fs::create_directory_symlink("../../../0000:04:00.0",
                                 root() + "/sys/devices/" + nic + "/infiniband/mlx5_0/device");
    fs::create_directories(root() + "/sys/class/infiniband");
    fs::create_directory_symlink("../../devices/" + nic + "/infiniband/mlx5_0",
                                 root() + "/sys/class/infiniband/mlx5_0");
    // A software RDMA device (rxe) has no PCI parent.
    fs::create_directories(root() + "/sys/devices/virtual/infiniband/rxe0");
    fs::create_directory_symlink("../../devices/virtual/infiniband/rxe0",
                                 root() + "/sys/class/infiniband/rxe0");
    fs::create_directories(root() + "/sys/devices/virtual/net/eth9/rdma");
    fs::create_directory_symlink("../../net/eth9", root() + "/sys/devices/virtual/infiniband/rxe0/device");
  }

  const std::string& root() const { return dir_.path(); }

 private:
  void device(const std::string& path, int numa) {
    const std::string dir = root() + "/sys/devices/" + path;
    fs::create_directories(dir);
    testing::write_file(dir + "/numa_node", std::to_string(numa) + "\n");
    // /sys/bus/pci/devices/<id> is a relative link to the device's folder, as in the kernel.
    fs::create_directories(root() + "/sys/bus/pci/devices");
    const std::string id = fs::path(path).filename().string();
    fs::create_directory_symlink("../../../devices/" + path, root() + "/sys/bus/pci/devices/" + id);
  }

  TempDir dir_;
};

PciLocation at(const std::string& path, int numa) { return PciLocation{"", "/sys/devices/" + path, numa}; }

TEST(PciTopology, NormalizesBusIdsToSysfsSpelling) {
  EXPECT_EQ(normalize_pci_bus_id("00000000:3B:00.0"), "0000:3b:00.0");  // cudaDeviceGetPCIBusId's form
  EXPECT_EQ(normalize_pci_bus_id("0000:3b:00.1"), "0000:3b:00.1");
  EXPECT_EQ(normalize_pci_bus_id("3b:00.0"), "0000:3b:00.0");
  EXPECT_EQ(normalize_pci_bus_id("10000:01:00.0"), "10000:01:00.0");  // a VMD domain keeps its width
  for (const char* bad : {"", "0000:3b:00", "0000:3b:00.8", "0000:3b:20.0", "zz:00.0", "0000:3b:00.0x",
                          "pci0000:00", "0000:300:00.0"}) {
    EXPECT_EQ(normalize_pci_bus_id(bad), std::nullopt) << bad;
  }
}

TEST(PciTopology, LocatesABusIdThroughSysBusPci) {
  FakeSysfs sys;
  PciLocation loc;
  ASSERT_TRUE(locate_pci_bus_id(sys.root(), "00000000:03:00.0", &loc).ok());
  EXPECT_EQ(loc.bus_id, "0000:03:00.0");
  EXPECT_EQ(loc.path, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:03:00.0");
  EXPECT_EQ(loc.numa_node, 0);
  ASSERT_TRUE(locate_pci_bus_id(sys.root(), "0000:81:00.0", &loc).ok());
  EXPECT_EQ(loc.numa_node, 1);
}

TEST(PciTopology, MissingOrMalformedBusIdSaysWhich) {
  FakeSysfs sys;
  PciLocation loc;
  Status s = locate_pci_bus_id(sys.root(), "0000:99:00.0", &loc);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_NE(s.message().find("/sys/bus/pci/devices/0000:99:00.0"), std::string::npos) << s.message();
  s = locate_pci_bus_id(sys.root(), "GPU-0", &loc);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("GPU-0"), std::string::npos) << s.message();
}

TEST(PciTopology, UnknownNumaNodeReadsAsMinusOne) {
  FakeSysfs sys;
  testing::write_file(sys.root() + "/sys/devices/pci0000:40/0000:40:01.0/0000:41:00.0/numa_node", "-1\n");
  fs::remove(sys.root() + "/sys/devices/pci0000:00/0000:00:02.0/0000:08:00.0/numa_node");
  PciLocation loc;
  ASSERT_TRUE(locate_pci_bus_id(sys.root(), "0000:41:00.0", &loc).ok());
  EXPECT_EQ(loc.numa_node, -1);
  ASSERT_TRUE(locate_pci_bus_id(sys.root(), "0000:08:00.0", &loc).ok());
  EXPECT_EQ(loc.numa_node, -1);
}

TEST(PciTopology, LocatesAClassDeviceThroughItsDeviceLink) {
  FakeSysfs sys;
  PciLocation loc;
  ASSERT_TRUE(locate_class_device(sys.root(), "/sys/class/infiniband/mlx5_0/", &loc).ok());
  EXPECT_EQ(loc.bus_id, "0000:04:00.0");
  EXPECT_EQ(loc.path, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:10.0/0000:04:00.0");
  EXPECT_EQ(loc.numa_node, 0);
}

TEST(PciTopology, SoftwareOrMissingClassDeviceIsNotOnPci) {
  FakeSysfs sys;
  PciLocation loc;
  Status s = locate_class_device(sys.root(), "/sys/class/infiniband/rxe0", &loc);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_NE(s.message().find("not a PCI device"), std::string::npos) << s.message();
  s = locate_class_device(sys.root(), "/sys/class/infiniband/mlx5_9", &loc);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_NE(s.message().find("mlx5_9"), std::string::npos) << s.message();
}

TEST(PciTopology, ClassifiesAsNvidiaSmiTopoDoes) {
  FakeSysfs sys;
  auto loc = [&](const char* id) {
    PciLocation l;
    EXPECT_TRUE(locate_pci_bus_id(sys.root(), id, &l).ok()) << id;
    return l;
  };
  const PciLocation gpu0 = loc("0000:03:00.0");
  const PciLocation nic0 = loc("0000:04:00.0");
  const PciLocation gpu1 = loc("0000:07:00.0");
  const PciLocation nic1 = loc("0000:08:00.0");
  const PciLocation nic2 = loc("0000:41:00.0");
  const PciLocation gpu2 = loc("0000:81:00.0");
  EXPECT_EQ(classify_pci_relation(gpu0, gpu0), PciRelation::kSame);
  EXPECT_EQ(classify_pci_relation(gpu0, nic0), PciRelation::kPix);  // two ports of one switch
  EXPECT_EQ(classify_pci_relation(nic0, gpu0), PciRelation::kPix);
  EXPECT_EQ(classify_pci_relation(gpu1, nic0), PciRelation::kPxb);  // a second switch below the first
  EXPECT_EQ(classify_pci_relation(nic0, gpu1), PciRelation::kPxb);
  EXPECT_EQ(classify_pci_relation(gpu0, nic1), PciRelation::kPhb);   // other root port, same root bus
  EXPECT_EQ(classify_pci_relation(gpu0, nic2), PciRelation::kNode);  // other host bridge, same NUMA node
  EXPECT_EQ(classify_pci_relation(gpu2, nic0), PciRelation::kSys);   // other socket
  EXPECT_EQ(classify_pci_relation(nic2, gpu2), PciRelation::kSys);
}

TEST(PciTopology, SwitchesAreCountedByIdentityNotDepth) {
  // Both devices sit two switches deep, but in different second-level switches:
  // the route crosses three switches.
  const PciLocation a =
      at("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:00.0/0000:05:00.0", 0);
  const PciLocation b =
      at("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:06:00.0/0000:07:00.0/0000:08:00.0", 0);
  EXPECT_EQ(classify_pci_relation(a, b), PciRelation::kPxb);
  // Under the same second-level switch: one switch.
  const PciLocation c =
      at("pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:01.0/0000:09:00.0", 0);
  EXPECT_EQ(classify_pci_relation(a, c), PciRelation::kPix);
}

TEST(PciTopology, RootPortOnlyInCommonIsHostBridge) {
  // Two functions below one root port share no switch: traffic turns in the root complex.
  const PciLocation a = at("pci0000:00/0000:00:01.0/0000:01:00.0", 0);
  const PciLocation b = at("pci0000:00/0000:00:01.0/0000:01:00.1", 0);
  EXPECT_EQ(classify_pci_relation(a, b), PciRelation::kPhb);
  // A device directly on the root bus (no root port) and one below a root port.
  const PciLocation c = at("pci0000:00/0000:00:1f.0", 0);
  EXPECT_EQ(classify_pci_relation(a, c), PciRelation::kPhb);
}

TEST(PciTopology, NumaNodesDecideBetweenNodeAndSys) {
  const PciLocation a = at("pci0000:00/0000:00:01.0/0000:01:00.0", -1);
  const PciLocation b = at("pci0000:80/0000:80:01.0/0000:81:00.0", -1);
  EXPECT_EQ(classify_pci_relation(a, b), PciRelation::kNode);  // both unknown: a single-node machine
  EXPECT_EQ(classify_pci_relation(a, at("pci0000:80/0000:80:01.0/0000:81:00.0", 1)), PciRelation::kSys);
  EXPECT_EQ(classify_pci_relation(at("pci0000:00/0000:00:01.0/0000:01:00.0", 1),
                                  at("pci0000:80/0000:80:01.0/0000:81:00.0", 1)),
            PciRelation::kNode);
}

TEST(PciTopology, RelationNamesAreNvidiaSmis) {
  EXPECT_EQ(pci_relation_name(PciRelation::kSame), "X");
  EXPECT_EQ(pci_relation_name(PciRelation::kPix), "PIX");
  EXPECT_EQ(pci_relation_name(PciRelation::kPxb), "PXB");
  EXPECT_EQ(pci_relation_name(PciRelation::kPhb), "PHB");
  EXPECT_EQ(pci_relation_name(PciRelation::kNode), "NODE");
  EXPECT_EQ(pci_relation_name(PciRelation::kSys), "SYS");
}

}  // namespace
}  // namespace iofab
