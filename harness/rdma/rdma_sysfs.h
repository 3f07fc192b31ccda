// RDMA devices as the kernel lists them under /sys/class/infiniband, read
// without libibverbs, so discovery works in any build and tests can point the
// reader at a fake tree. Used by the `rdma` phase (to explain a skip and to
// pick a RoCE GID) and by `iofab list`.
//
// Layout read (every file optional; a missing one leaves its field empty):
//   <root>/<dev>/node_guid, fw_ver, node_type ("1: CA"), hca_type, board_id
//   <root>/<dev>/ports/<n>/state       "4: ACTIVE"
//   <root>/<dev>/ports/<n>/phys_state  "5: LinkUp"
//   <root>/<dev>/ports/<n>/link_layer  "InfiniBand" | "Ethernet"
//   <root>/<dev>/ports/<n>/lid         "0x12"
//   <root>/<dev>/ports/<n>/rate        "100 Gb/sec (4X EDR)"
//   <root>/<dev>/ports/<n>/gids/<i>    "fe80:0000:0000:0000:0202:c9ff:fe00:0001"
//   <root>/<dev>/ports/<n>/gid_attrs/types/<i>  "IB/RoCE v1" | "RoCE v2"
//   <root>/<dev>/ports/<n>/gid_attrs/ndevs/<i>  "eth0"
//
// API stability: other commands (`iofab list`) read these structs; add
// fields rather than rename. Thread-safety: plain functions on plain data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/status.h"

namespace iofab {

inline constexpr const char* kSysfsInfinibandRoot = "/sys/class/infiniband";

struct RdmaGid {
  int index = 0;
  std::string value;   // as sysfs writes it: 8 groups of 4 hex digits, colon-separated
  std::string type;    // "IB/RoCE v1", "RoCE v2", or "" when the kernel does not say
  std::string netdev;  // gid_attrs/ndevs: the Ethernet interface of a RoCE GID, or ""

  bool is_roce_v2() const { return type == "RoCE v2"; }
  // ::ffff:a.b.c.d: a RoCE GID built from an IPv4 address (routable RoCE v2 uses these).
  bool is_ipv4_mapped() const;
  // "10.0.0.1" for an IPv4-mapped GID, else "".
  std::string ipv4() const;
};

struct RdmaPort {
  int number = 0;
  int state_code = 0;         // 4 = ACTIVE (the number before the colon of `state`)
  std::string state;          // "ACTIVE", "DOWN", "INIT", ...
  std::string phys_state;     // "LinkUp", "Disabled", ...
  std::string link_layer;     // "InfiniBand" or "Ethernet"
  uint32_t lid = 0;           // InfiniBand local id; 0 on Ethernet
  std::string rate;           // "100 Gb/sec (4X EDR)"
  std::vector<RdmaGid> gids;  // non-zero entries only, by index

  bool active() const { return state_code == 4; }
  bool ethernet() const { return link_layer == "Ethernet"; }
};

struct RdmaDevice {
  std::string name;  // "mlx5_0"
  std::string node_guid;
  std::string fw_ver;
  std::string node_type;  // "CA", "RNIC", ...
  std::string hca_type;
  std::string board_id;
  std::vector<RdmaPort> ports;  // by port number
};

// Every device under root, sorted by name. A root that does not exist gives
// an empty list and Ok (no RDMA devices); an unreadable one an IoError.
Status read_rdma_devices(const std::string& root, std::vector<RdmaDevice>* out);

// The GID a RoCE port should use when none is named: the first RoCE v2
// IPv4-mapped one (routable across subnets, what the NCCL and perftest
// defaults pick), else the first RoCE v2, else the first one listed.
// std::nullopt for an empty table.
std::optional<int> pick_roce_gid(const std::vector<RdmaGid>& gids);

// The port the `rdma` phase uses: device named `device` ("" = any, in name
// order) and port `port` (0 = any), the first active one. On failure
// *reason is the user-facing skip reason: "no RDMA device (no
// /sys/class/infiniband entries)", "no RDMA device named X (found: a, b)",
// "no active port on mlx5_0", "port 2 of mlx5_0 is DOWN".
bool select_rdma_port(const std::vector<RdmaDevice>& devices, const std::string& device, int port,
                      const RdmaDevice** dev_out, const RdmaPort** port_out, std::string* reason);

}  // namespace iofab
