// The sysfs reader on fake /sys/class/infiniband trees: fields, GID types,
// unused GID entries, the RoCE GID choice, and the port choice's reasons.
#include "harness/rdma/rdma_sysfs.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_util.h"

namespace iofab {
namespace {

using iofab::testing::TempDir;
using iofab::testing::write_file;

void put(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  write_file(path, text + "\n");
}

void gid(const std::string& port, int i, const std::string& value, const std::string& type) {
  put(port + "/gids/" + std::to_string(i), value);
  if (!type.empty()) put(port + "/gid_attrs/types/" + std::to_string(i), type);
  if (!type.empty()) put(port + "/gid_attrs/ndevs/" + std::to_string(i), "eth0");
}

const char* kZero = "0000:0000:0000:0000:0000:0000:0000:0000";
const char* kLink = "fe80:0000:0000:0000:0202:c9ff:fe00:0001";
const char* kV4 = "0000:0000:0000:0000:0000:ffff:0a00:0005";  // ::ffff:10.0.0.5

// mlx5_0: InfiniBand, port 1 active (LID 0x12); rxe0: RoCE, port 1 active; mlx5_1: Ethernet, port 1 down.
void make_tree(const std::string& root) {
  const std::string ib = root + "/mlx5_0";
  put(ib + "/node_guid", "0002:c903:0001:0002");
  put(ib + "/fw_ver", "20.31.1014");
  put(ib + "/node_type", "1: CA");
  put(ib + "/hca_type", "MT4123");
  put(ib + "/ports/1/state", "4: ACTIVE");
  put(ib + "/ports/1/phys_state", "5: LinkUp");
  put(ib + "/ports/1/link_layer", "InfiniBand");
  put(ib + "/ports/1/lid", "0x12");
  put(ib + "/ports/1/rate", "200 Gb/sec (4X HDR)");
  gid(ib + "/ports/1", 0, kLink, "IB/RoCE v1");
  gid(ib + "/ports/1", 1, kZero, "");

  const std::string rxe = root + "/rxe0";
  put(rxe + "/ports/1/state", "4: ACTIVE");
  put(rxe + "/ports/1/link_layer", "Ethernet");
  put(rxe + "/ports/1/lid", "0x0");
  gid(rxe + "/ports/1", 0, kLink, "IB/RoCE v1");
  gid(rxe + "/ports/1", 1, kLink, "RoCE v2");
  gid(rxe + "/ports/1", 2, kV4, "IB/RoCE v1");
  gid(rxe + "/ports/1", 3, kV4, "RoCE v2");
  gid(rxe + "/ports/1", 4, kZero, "");

  const std::string down = root + "/mlx5_1";
  put(down + "/ports/1/state", "1: DOWN");
  put(down + "/ports/1/phys_state", "3: Disabled");
  put(down + "/ports/1/link_layer", "Ethernet");
}

TEST(RdmaSysfs, ReadsDevicesPortsAndGids) {
  TempDir dir;
  make_tree(dir.path());
  std::vector<RdmaDevice> devs;
  ASSERT_TRUE(read_rdma_devices(dir.path(), &devs).ok());
  ASSERT_EQ(devs.size(), 3u);
  EXPECT_EQ(devs[0].name, "mlx5_0");  // sorted by name
  EXPECT_EQ(devs[1].name, "mlx5_1");
  EXPECT_EQ(devs[2].name, "rxe0");
  const RdmaDevice& ib = devs[0];
  EXPECT_EQ(ib.fw_ver, "20.31.1014");
  EXPECT_EQ(ib.node_type, "CA");
  EXPECT_EQ(ib.hca_type, "MT4123");
  ASSERT_EQ(ib.ports.size(), 1u);
  const RdmaPort& p = ib.ports[0];
  EXPECT_EQ(p.number, 1);
  EXPECT_TRUE(p.active());
  EXPECT_EQ(p.state, "ACTIVE");
  EXPECT_EQ(p.phys_state, "LinkUp");
  EXPECT_EQ(p.lid, 0x12u);
  EXPECT_FALSE(p.ethernet());
  EXPECT_EQ(p.rate, "200 Gb/sec (4X HDR)");
  ASSERT_EQ(p.gids.size(), 1u) << "the all-zero entry is unused and left out";
  EXPECT_EQ(p.gids[0].value, kLink);

  const RdmaPort& roce = devs[2].ports[0];
  EXPECT_TRUE(roce.ethernet());
  ASSERT_EQ(roce.gids.size(), 4u);
  EXPECT_TRUE(roce.gids[3].is_roce_v2());
  EXPECT_TRUE(roce.gids[3].is_ipv4_mapped());
  EXPECT_EQ(roce.gids[3].ipv4(), "10.0.0.5");
  EXPECT_EQ(roce.gids[3].netdev, "eth0");
  EXPECT_FALSE(roce.gids[1].is_ipv4_mapped());
  EXPECT_EQ(roce.gids[1].ipv4(), "");
  EXPECT_FALSE(devs[1].ports[0].active());
  EXPECT_EQ(devs[1].ports[0].state, "DOWN");
}

TEST(RdmaSysfs, MissingRootIsNoDevices) {
  std::vector<RdmaDevice> devs{RdmaDevice{}};
  EXPECT_TRUE(read_rdma_devices("/nonexistent/infiniband", &devs).ok());
  EXPECT_TRUE(devs.empty());
}

TEST(RdmaSysfs, PicksRoceV2Ipv4GidFirst) {
  std::vector<RdmaGid> g = {{0, kLink, "IB/RoCE v1", ""},
                            {1, kLink, "RoCE v2", ""},
                            {2, kV4, "IB/RoCE v1", ""},
                            {3, kV4, "RoCE v2", ""}};
  EXPECT_EQ(pick_roce_gid(g), 3);
  g.pop_back();
  EXPECT_EQ(pick_roce_gid(g), 1);  // no IPv4 one: the first RoCE v2
  g.erase(g.begin() + 1);
  EXPECT_EQ(pick_roce_gid(g), 0);  // no RoCE v2 at all: the first listed
  EXPECT_EQ(pick_roce_gid({}), std::nullopt);
}

TEST(RdmaSysfs, SelectsPortOrSaysWhyNot) {
  TempDir dir;
  make_tree(dir.path());
  std::vector<RdmaDevice> devs;
  ASSERT_TRUE(read_rdma_devices(dir.path(), &devs).ok());
  const RdmaDevice* d = nullptr;
  const RdmaPort* p = nullptr;
  std::string why;
  ASSERT_TRUE(select_rdma_port(devs, "", 0, &d, &p, &why));
  EXPECT_EQ(d->name, "mlx5_0");
  ASSERT_TRUE(select_rdma_port(devs, "rxe0", 1, &d, &p, &why));
  EXPECT_EQ(d->name, "rxe0");
  EXPECT_EQ(p->number, 1);

  EXPECT_FALSE(select_rdma_port(devs, "mlx5_1", 0, &d, &p, &why));
  EXPECT_EQ(why, "no active port on mlx5_1");
  EXPECT_FALSE(select_rdma_port(devs, "mlx5_1", 1, &d, &p, &why));
  EXPECT_EQ(why, "port 1 of mlx5_1 is DOWN");
  EXPECT_FALSE(select_rdma_port(devs, "mlx5_0", 2, &d, &p, &why));
  EXPECT_EQ(why, "no port 2 on mlx5_0");
  EXPECT_FALSE(select_rdma_port(devs, "bnxt_re0", 0, &d, &p, &why));
  EXPECT_EQ(why, "no RDMA device named bnxt_re0 (found: mlx5_0, mlx5_1, rxe0)");
  EXPECT_FALSE(select_rdma_port({}, "", 0, &d, &p, &why));
  EXPECT_EQ(why, "no RDMA device (no /sys/class/infiniband entries)");
}

}  // namespace
}  // namespace iofab
