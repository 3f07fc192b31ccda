// RdmaFabric and RdmaEndpoint: the few verbs operations the `rdma` phase
// needs, so its loops (sweep, ping-pong, bandwidth pipelines) are written once
// and run both on a real device (verbs_fabric_ibverbs.cc: RC queue pairs over
// libibverbs) and in unit tests (loopback_fabric.h: in-process copies).
//
// A fabric is one rank's open device and port. An endpoint is this rank's end
// of one connection to one peer rank: one registered buffer (host or CUDA
// memory) and `qps` reliable-connected queue pairs sharing a send and a
// receive completion queue. The peer's EndpointInfo (queue pair numbers,
// addressing, the buffer's address and rkey) travels over the control plane;
// connect() then makes the queue pairs ready to send.
//
// Buffer layout, per queue pair i of `qps`, each slot `slot_bytes` long:
//   out area: [i * slot, (i+1) * slot)            what this side sends from
//   in area:  [(qps + i) * slot, (qps + i + 1) * slot)   where the peer writes to
// Receives (for SEND and WRITE with immediate) land in the in area too.
//
// Thread-safety: an endpoint is used by one thread at a time. Calls never
// block: post_* queue work, poll() returns what completed so far.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/core/status.h"

namespace iofab {

enum class RdmaMemory { kHost, kCuda };
const char* rdma_memory_name(RdmaMemory m);  // "host", "cuda"

enum class RdmaOp {
  kWrite,     // RDMA WRITE: the peer's CPU sees nothing
  kWriteImm,  // RDMA WRITE with immediate: consumes a receive on the peer, which gets a completion
  kRead,      // RDMA READ: the peer's out slot into our in slot
  kSend,      // SEND: consumes a receive on the peer
  kSendImm,   // SEND with immediate (the imm value marks the last message of a run)
};

// What a peer needs to reach one endpoint; exchanged as JSON (workloads/rdma/qp_exchange.h).
struct QpAddress {
  uint32_t qpn = 0;  // queue pair number
  uint32_t psn = 0;  // first packet sequence number
  bool operator==(const QpAddress&) const = default;
};

struct EndpointInfo {
  uint32_t lid = 0;    // InfiniBand local id (0 on RoCE)
  std::string gid;     // 16 bytes as 8 colon-separated groups of 4 hex digits; "" when not used
  int gid_index = -1;  // -1: no GRH (InfiniBand within a subnet)
  uint32_t mtu = 0;    // active MTU in bytes (256..4096)
  uint64_t addr = 0;   // buffer start as the peer addresses it
  uint32_t rkey = 0;
  uint64_t bytes = 0;  // buffer length
  std::vector<QpAddress> qps;
  bool operator==(const EndpointInfo&) const = default;
};

struct EndpointSpec {
  int qps = 1;
  uint32_t tx_depth = 128;  // send queue depth per queue pair
  uint32_t rx_depth = 512;  // receive queue depth per queue pair
  uint64_t slot_bytes = 0;  // per queue pair, per area
  RdmaMemory memory = RdmaMemory::kHost;
  int gpu = 0;  // CUDA device for RdmaMemory::kCuda
};

// Posts `count` work requests of one op on queue pair `qp`, chained in one
// call, each moving `bytes` from this side's out slot (READ: into the in
// slot) to the peer's in slot (READ: from the peer's out slot). Only the
// last is signaled when `signal_last`; its completion carries `wr_id`.
// The last carries `imm` for the *Imm ops. Inline when bytes <= max_inline().
struct WorkBatch {
  int qp = 0;
  RdmaOp op = RdmaOp::kWrite;
  uint32_t count = 1;
  uint32_t bytes = 0;
  bool signal_last = true;
  uint64_t wr_id = 0;
  uint32_t imm = 0;
};

struct Completion {
  int qp = 0;
  bool recv = false;   // from the receive queue (an incoming SEND or WRITE with immediate)
  uint64_t wr_id = 0;  // send side: WorkBatch::wr_id
  uint32_t bytes = 0;  // receive side: bytes received
  bool has_imm = false;
  uint32_t imm = 0;
};

class RdmaEndpoint {
 public:
  RdmaEndpoint() = default;
  RdmaEndpoint(const RdmaEndpoint&) = delete;
  RdmaEndpoint& operator=(const RdmaEndpoint&) = delete;
  virtual ~RdmaEndpoint() = default;

  virtual const EndpointInfo& info() const = 0;
  // Brings every queue pair to ready-to-send towards the peer; the peer must
  // connect() too before traffic flows. remote.qps.size() must equal ours.
  virtual Status connect(const EndpointInfo& remote) = 0;
  virtual Status post(const WorkBatch& batch) = 0;
  // Posts `count` receives of a whole slot each on queue pair qp.
  virtual Status post_recv(int qp, uint32_t count) = 0;
  // Up to max completions of the send (recv = false) or receive queue into
  // out; *n how many. A failed work request is an IoError naming it.
  virtual Status poll(bool recv, int max, Completion* out, int* n) = 0;
  virtual uint32_t max_inline() const = 0;

  // True when the CPU can read and write the buffer (host memory), which
  // ping-pong over plain RDMA WRITE needs: the receiver polls the last byte
  // of its in slot, as perftest's ib_write_lat does.
  virtual bool host_visible() const = 0;
  // Byte at `offset` of the buffer (host_visible() only), read as the NIC may change it.
  virtual uint8_t peek(uint64_t offset) const = 0;
  virtual void poke(uint64_t offset, uint8_t value) = 0;
};

class RdmaFabric {
 public:
  RdmaFabric() = default;
  RdmaFabric(const RdmaFabric&) = delete;
  RdmaFabric& operator=(const RdmaFabric&) = delete;
  virtual ~RdmaFabric() = default;

  // Device, port, link layer, GID, MTU and limits, for the report's details.
  virtual nlohmann::json describe() const = 0;
  virtual Status create_endpoint(const EndpointSpec& spec, std::unique_ptr<RdmaEndpoint>* out) = 0;
};

// Which device and port to open.
struct FabricChoice {
  std::string device;  // "" = the first with an active port
  int port = 0;        // 0 = the first active
  int gid_index = -1;  // -1 = auto: on Ethernet (RoCE) pick_roce_gid(); on InfiniBand none (LID routing)
};

}  // namespace iofab
