// RdmaFabric over libibverbs, as perftest does it: RC queue pairs moved
// INIT -> RTR -> RTS with the peer's numbers, one memory region per
// endpoint (host memory, or CUDA memory through dma-buf or nvidia-peermem),
// inline sends where the queue pair allows, chains of work requests with
// only the last signaled.
#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "harness/rdma/gpu_memory.h"
#include "harness/rdma/rdma_sysfs.h"
#include "harness/rdma/verbs_fabric.h"

namespace iofab {
namespace {

constexpr uint32_t kWantInline = 220;  // perftest's default inline size for latency tests
constexpr int kMaxRdAtomic = 16;
constexpr int kAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

std::string gid_text(const ibv_gid& g) {
  char buf[48];
  const uint8_t* r = g.raw;
  std::snprintf(buf, sizeof buf, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
                r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14],
                r[15]);
  return buf;
}

bool parse_gid(const std::string& text, ibv_gid* g) {
  unsigned v[8];
  if (std::sscanf(text.c_str(), "%4x:%4x:%4x:%4x:%4x:%4x:%4x:%4x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                  &v[6], &v[7]) != 8) {
    return false;
  }
  for (int i = 0; i < 8; ++i) {
    g->raw[2 * i] = static_cast<uint8_t>(v[i] >> 8);
    g->raw[2 * i + 1] = static_cast<uint8_t>(v[i] & 0xff);
  }
  return true;
}

uint32_t mtu_bytes(ibv_mtu m) { return 128u << static_cast<int>(m); }  // IBV_MTU_256 == 1

ibv_mtu mtu_enum(uint32_t bytes) {
  if (bytes >= 4096) return IBV_MTU_4096;
  if (bytes >= 2048) return IBV_MTU_2048;
  if (bytes >= 1024) return IBV_MTU_1024;
  if (bytes >= 512) return IBV_MTU_512;
  return IBV_MTU_256;
}

Status errno_status(const std::string& what, int err) {
  return Status::FromErrno(what, err != 0 ? err : EIO);
}

// The opened device and port, shared by the fabric and its endpoints.
struct Device {
  ibv_context* ctx = nullptr;
  ibv_pd* pd = nullptr;
  std::string name;
  int port = 0;
  ibv_port_attr port_attr{};
  ibv_device_attr dev_attr{};
  int gid_index = -1;
  ibv_gid gid{};
  std::string gid_type;

  ~Device() {
    if (pd != nullptr) ibv_dealloc_pd(pd);
    if (ctx != nullptr) ibv_close_device(ctx);
  }
  bool ethernet() const { return port_attr.link_layer == IBV_LINK_LAYER_ETHERNET; }
};

class VerbsEndpoint final : public RdmaEndpoint {
 public:
  VerbsEndpoint(std::shared_ptr<Device> dev, const EndpointSpec& spec) : dev_(std::move(dev)), spec_(spec) {}

  ~VerbsEndpoint() override {
    for (ibv_qp* q : qps_) ibv_destroy_qp(q);
    if (send_cq_ != nullptr) ibv_destroy_cq(send_cq_);
    if (recv_cq_ != nullptr) ibv_destroy_cq(recv_cq_);
    if (mr_ != nullptr) ibv_dereg_mr(mr_);
    std::free(host_);
  }

  Status init(std::string* registration) {
    const size_t bytes = static_cast<size_t>(2 * spec_.qps) * spec_.slot_bytes;
    Status s = spec_.memory == RdmaMemory::kCuda ? register_cuda(bytes, registration) : register_host(bytes);
    if (!s.ok()) return s;
    if (registration->empty()) *registration = "host";
    const int send_depth = static_cast<int>(spec_.tx_depth) * spec_.qps;
    const int recv_depth = static_cast<int>(spec_.rx_depth) * spec_.qps;
    send_cq_ = ibv_create_cq(dev_->ctx, send_depth, nullptr, nullptr, 0);
    if (send_cq_ == nullptr) return errno_status("ibv_create_cq(" + std::to_string(send_depth) + ")", errno);
    recv_cq_ = ibv_create_cq(dev_->ctx, recv_depth, nullptr, nullptr, 0);
    if (recv_cq_ == nullptr) return errno_status("ibv_create_cq(" + std::to_string(recv_depth) + ")", errno);
    std::mt19937 rng(std::random_device{}());
    for (int i = 0; i < spec_.qps; ++i) {
      ibv_qp* qp = create_qp();
      if (qp == nullptr)
        return errno_status("ibv_create_qp (RC, depth " + std::to_string(spec_.tx_depth) + ")", errno);
      qps_.push_back(qp);
      ibv_qp_attr a{};
      a.qp_state = IBV_QPS_INIT;
      a.pkey_index = 0;
      a.port_num = static_cast<uint8_t>(dev_->port);
      a.qp_access_flags = kAccess;
      const int rc =
          ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
      if (rc != 0) return errno_status("ibv_modify_qp to INIT", rc);
      info_.qps.push_back({qp->qp_num, static_cast<uint32_t>(rng()) & 0xffffff});
    }
    info_.lid = dev_->port_attr.lid;
    info_.gid_index = dev_->gid_index;
    info_.gid = dev_->gid_index >= 0 ? gid_text(dev_->gid) : "";
    info_.mtu = mtu_bytes(dev_->port_attr.active_mtu);
    info_.addr = reinterpret_cast<uint64_t>(base_);
    info_.rkey = mr_->rkey;
    info_.bytes = bytes;
    wrs_.resize(spec_.tx_depth);
    sges_.resize(spec_.tx_depth);
    rwrs_.resize(spec_.rx_depth);
    rsges_.resize(spec_.rx_depth);
    return Status::Ok();
  }

  const EndpointInfo& info() const override { return info_; }

  Status connect(const EndpointInfo& remote) override {
    if (remote.qps.size() != qps_.size() || remote.bytes != info_.bytes) {
      return Status::Invalid("peer endpoint does not match: " + std::to_string(remote.qps.size()) +
                             " queue pairs of " + std::to_string(remote.bytes) + " bytes, we have " +
                             std::to_string(qps_.size()) + " of " + std::to_string(info_.bytes));
    }
    ibv_gid dgid{};
    const bool grh = dev_->gid_index >= 0;
    if (grh && !parse_gid(remote.gid, &dgid)) {
      return Status::Invalid("peer sent no usable GID (\"" + remote.gid +
                             "\"); RoCE needs one on both sides");
    }
    const int rd_atomic = std::min(kMaxRdAtomic, dev_->dev_attr.max_qp_rd_atom);
    for (size_t i = 0; i < qps_.size(); ++i) {
      ibv_qp_attr a{};
      a.qp_state = IBV_QPS_RTR;
      a.path_mtu = std::min(dev_->port_attr.active_mtu, mtu_enum(remote.mtu));
      a.dest_qp_num = remote.qps[i].qpn;
      a.rq_psn = remote.qps[i].psn;
      a.max_dest_rd_atomic = static_cast<uint8_t>(rd_atomic);
      a.min_rnr_timer = 12;
      a.ah_attr.dlid = static_cast<uint16_t>(remote.lid);
      a.ah_attr.sl = 0;
      a.ah_attr.port_num = static_cast<uint8_t>(dev_->port);
      if (grh) {
        a.ah_attr.is_global = 1;
        a.ah_attr.grh.dgid = dgid;
        a.ah_attr.grh.sgid_index = static_cast<uint8_t>(dev_->gid_index);
        a.ah_attr.grh.hop_limit = 64;
      }
      int rc = ibv_modify_qp(qps_[i], &a,
                             IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
      if (rc != 0)
        return errno_status("ibv_modify_qp to RTR (peer qpn " + std::to_string(remote.qps[i].qpn) + ")", rc);
      ibv_qp_attr r{};
      r.qp_state = IBV_QPS_RTS;
      r.timeout = 14;
      r.retry_cnt = 7;
      r.rnr_retry = 7;  // retry forever while the receiver has no receive posted
      r.sq_psn = info_.qps[i].psn;
      r.max_rd_atomic = static_cast<uint8_t>(rd_atomic);
      rc = ibv_modify_qp(qps_[i], &r,
                         IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                             IBV_QP_MAX_QP_RD_ATOMIC);
      if (rc != 0) return errno_status("ibv_modify_qp to RTS", rc);
    }
    remote_ = remote;
    connected_ = true;
    return Status::Ok();
  }

  Status post(const WorkBatch& b) override {
    if (!connected_) return Status::Internal("post before connect");
    if (b.qp < 0 || b.qp >= spec_.qps || b.count == 0 || b.count > spec_.tx_depth ||
        b.bytes > spec_.slot_bytes) {
      return Status::Invalid("work batch out of range");
    }
    const uint64_t out = static_cast<uint64_t>(b.qp) * spec_.slot_bytes;
    const uint64_t in = static_cast<uint64_t>(spec_.qps + b.qp) * spec_.slot_bytes;
    const bool read = b.op == RdmaOp::kRead;
    const bool inl = !read && b.bytes <= max_inline_;
    for (uint32_t k = 0; k < b.count; ++k) {
      const bool last = k + 1 == b.count;
      ibv_sge& sge = sges_[k];
      sge.addr = reinterpret_cast<uint64_t>(base_) + (read ? in : out);
      sge.length = b.bytes;
      sge.lkey = mr_->lkey;
      ibv_send_wr& wr = wrs_[k];
      wr = ibv_send_wr{};
      wr.wr_id = last ? b.wr_id : 0;
      wr.sg_list = &sge;
      wr.num_sge = 1;
      wr.next = last ? nullptr : &wrs_[k + 1];
      wr.send_flags = (inl ? IBV_SEND_INLINE : 0) | (last && b.signal_last ? IBV_SEND_SIGNALED : 0);
      wr.wr.rdma.remote_addr = remote_.addr + (read ? out : in);
      wr.wr.rdma.rkey = remote_.rkey;
      switch (b.op) {
        case RdmaOp::kWrite:
          wr.opcode = IBV_WR_RDMA_WRITE;
          break;
        case RdmaOp::kWriteImm:
          wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
          wr.imm_data = htonl(last ? b.imm : 0);
          break;
        case RdmaOp::kRead:
          wr.opcode = IBV_WR_RDMA_READ;
          break;
        case RdmaOp::kSend:
          wr.opcode = IBV_WR_SEND;
          break;
        case RdmaOp::kSendImm:
          wr.opcode = last ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
          wr.imm_data = htonl(last ? b.imm : 0);
          break;
      }
    }
    ibv_send_wr* bad = nullptr;
    const int rc = ibv_post_send(qps_[static_cast<size_t>(b.qp)], &wrs_[0], &bad);
    return rc == 0 ? Status::Ok() : errno_status("ibv_post_send", rc);
  }

  Status post_recv(int qp, uint32_t count) override {
    if (qp < 0 || qp >= spec_.qps || count == 0 || count > spec_.rx_depth)
      return Status::Invalid("receive batch out of range");
    const uint64_t in = static_cast<uint64_t>(spec_.qps + qp) * spec_.slot_bytes;
    for (uint32_t k = 0; k < count; ++k) {
      rsges_[k] = {reinterpret_cast<uint64_t>(base_) + in, static_cast<uint32_t>(spec_.slot_bytes),
                   mr_->lkey};
      rwrs_[k] = ibv_recv_wr{};
      rwrs_[k].sg_list = &rsges_[k];
      rwrs_[k].num_sge = 1;
      rwrs_[k].next = k + 1 == count ? nullptr : &rwrs_[k + 1];
    }
    ibv_recv_wr* bad = nullptr;
    const int rc = ibv_post_recv(qps_[static_cast<size_t>(qp)], &rwrs_[0], &bad);
    return rc == 0 ? Status::Ok() : errno_status("ibv_post_recv", rc);
  }

  Status poll(bool recv, int max, Completion* out, int* n) override {
    ibv_wc wc[32];
    const int got = ibv_poll_cq(recv ? recv_cq_ : send_cq_, std::min(max, 32), wc);
    if (got < 0) return Status::IoError("ibv_poll_cq failed");
    *n = got;
    for (int i = 0; i < got; ++i) {
      int q = 0;
      while (q < spec_.qps && qps_[static_cast<size_t>(q)]->qp_num != wc[i].qp_num) ++q;
      if (wc[i].status != IBV_WC_SUCCESS) {
        char vendor[32];
        std::snprintf(vendor, sizeof vendor, "0x%x", wc[i].vendor_err);
        return Status::IoError(std::string(recv ? "receive" : "send") +
                               " work request failed on queue pair " + std::to_string(wc[i].qp_num) + ": " +
                               ibv_wc_status_str(wc[i].status) + " (vendor error " + vendor + ")");
      }
      out[i] = Completion{q,
                          recv,
                          wc[i].wr_id,
                          wc[i].byte_len,
                          (wc[i].wc_flags & IBV_WC_WITH_IMM) != 0,
                          (wc[i].wc_flags & IBV_WC_WITH_IMM) != 0 ? ntohl(wc[i].imm_data) : 0};
    }
    return Status::Ok();
  }

  uint32_t max_inline() const override { return max_inline_; }
  bool host_visible() const override { return spec_.memory == RdmaMemory::kHost; }
  uint8_t peek(uint64_t offset) const override { return static_cast<volatile const uint8_t*>(base_)[offset]; }
  void poke(uint64_t offset, uint8_t value) override {
    static_cast<volatile uint8_t*>(base_)[offset] = value;
  }

 private:
  Status register_host(size_t bytes) {
    const size_t rounded = (bytes + 4095) / 4096 * 4096;
    host_ = std::aligned_alloc(4096, rounded);
    if (host_ == nullptr)
      return Status::IoError("out of memory for a " + std::to_string(rounded) + "-byte RDMA buffer");
    std::memset(host_, 0, rounded);
    base_ = host_;
    mr_ = ibv_reg_mr(dev_->pd, host_, bytes, kAccess);
    return mr_ != nullptr ? Status::Ok()
                          : errno_status("ibv_reg_mr of " + std::to_string(bytes) + " bytes", errno);
  }

  Status register_cuda(size_t bytes, std::string* how) {
    Status s = GpuBuffer::allocate(spec_.gpu, bytes, &gpu_);
    if (!s.ok()) return s;
    base_ = gpu_->data();
    std::string dmabuf_why = gpu_->dmabuf_reason();
    if (gpu_->dmabuf_fd() >= 0) {
      mr_ = ibv_reg_dmabuf_mr(dev_->pd, 0, bytes, reinterpret_cast<uint64_t>(base_), gpu_->dmabuf_fd(),
                              kAccess);
      if (mr_ != nullptr) {
        *how = "cuda dma-buf";
        return Status::Ok();
      }
      dmabuf_why = std::string("ibv_reg_dmabuf_mr: ") + std::strerror(errno);
    }
    mr_ = ibv_reg_mr(dev_->pd, base_, bytes, kAccess);
    if (mr_ != nullptr) {
      *how = "cuda peermem (no dma-buf: " + dmabuf_why + ")";
      return Status::Ok();
    }
    return Status::Unavailable(
        std::string("cannot register CUDA memory with ") + dev_->name + ": no dma-buf (" + dmabuf_why +
        ") and ibv_reg_mr failed (" + std::strerror(errno) +
        "): load nvidia-peermem, or use kernel >= 5.12 with NVIDIA's open GPU kernel modules");
  }

  ibv_qp* create_qp() {
    for (uint32_t inl : {kWantInline, 0u}) {
      ibv_qp_init_attr a{};
      a.send_cq = send_cq_;
      a.recv_cq = recv_cq_;
      a.qp_type = IBV_QPT_RC;
      a.sq_sig_all = 0;
      a.cap.max_send_wr = spec_.tx_depth;
      a.cap.max_recv_wr = spec_.rx_depth;
      a.cap.max_send_sge = 1;
      a.cap.max_recv_sge = 1;
      a.cap.max_inline_data = inl;
      ibv_qp* qp = ibv_create_qp(dev_->pd, &a);
      if (qp != nullptr) {
        max_inline_ = a.cap.max_inline_data;
        return qp;
      }
    }
    return nullptr;
  }

  std::shared_ptr<Device> dev_;
  EndpointSpec spec_;
  void* host_ = nullptr;
  std::unique_ptr<GpuBuffer> gpu_;
  void* base_ = nullptr;
  ibv_mr* mr_ = nullptr;
  ibv_cq* send_cq_ = nullptr;
  ibv_cq* recv_cq_ = nullptr;
  std::vector<ibv_qp*> qps_;
  uint32_t max_inline_ = 0;
  EndpointInfo info_;
  EndpointInfo remote_;
  bool connected_ = false;
  std::vector<ibv_send_wr> wrs_;
  std::vector<ibv_sge> sges_;
  std::vector<ibv_recv_wr> rwrs_;
  std::vector<ibv_sge> rsges_;
};

class VerbsFabric final : public RdmaFabric {
 public:
  explicit VerbsFabric(std::shared_ptr<Device> dev) : dev_(std::move(dev)) {}

  nlohmann::json describe() const override {
    nlohmann::json j = {{"device", dev_->name},
                        {"port", dev_->port},
                        {"link_layer", dev_->ethernet() ? "Ethernet" : "InfiniBand"},
                        {"lid", dev_->port_attr.lid},
                        {"mtu", mtu_bytes(dev_->port_attr.active_mtu)},
                        {"max_qp_rd_atom", dev_->dev_attr.max_qp_rd_atom},
                        {"fw_ver", dev_->dev_attr.fw_ver},
                        {"registration", registration_}};
    if (dev_->gid_index >= 0) {
      j["gid_index"] = dev_->gid_index;
      j["gid"] = gid_text(dev_->gid);
      j["gid_type"] = dev_->gid_type;
    }
    return j;
  }

  Status create_endpoint(const EndpointSpec& spec, std::unique_ptr<RdmaEndpoint>* out) override {
    auto ep = std::make_unique<VerbsEndpoint>(dev_, spec);
    Status s = ep->init(&registration_);
    if (!s.ok()) return s;
    *out = std::move(ep);
    return Status::Ok();
  }

 private:
  std::shared_ptr<Device> dev_;
  std::string registration_;
};

std::string gid_type_name(ibv_gid_type t) {
  switch (t) {
    case IBV_GID_TYPE_IB:
      return "IB";
    case IBV_GID_TYPE_ROCE_V1:
      return "IB/RoCE v1";
    case IBV_GID_TYPE_ROCE_V2:
      return "RoCE v2";
  }
  return "";
}

// The port's GID table as the sysfs reader's structs, so pick_roce_gid() decides for both.
std::vector<RdmaGid> gid_table(const Device& d) {
  std::vector<RdmaGid> out;
  for (int i = 0; i < d.port_attr.gid_tbl_len; ++i) {
    ibv_gid_entry e{};
    if (ibv_query_gid_ex(d.ctx, static_cast<uint32_t>(d.port), static_cast<uint32_t>(i), &e, 0) != 0)
      continue;
    ibv_gid g{};
    std::memcpy(g.raw, e.gid.raw, sizeof g.raw);
    const std::string text = gid_text(g);
    if (text.find_first_not_of("0:") == std::string::npos) continue;
    out.push_back({i, text, gid_type_name(static_cast<ibv_gid_type>(e.gid_type)), ""});
  }
  return out;
}

Status choose_gid(const FabricChoice& choice, Device* d) {
  if (!d->ethernet() && choice.gid_index < 0) return Status::Ok();  // InfiniBand: LID routing, no GRH
  const std::vector<RdmaGid> table = gid_table(*d);
  int index = choice.gid_index;
  if (index < 0) {
    const auto picked = pick_roce_gid(table);
    if (!picked) {
      return Status::Unavailable("no GID on " + d->name + " port " + std::to_string(d->port) +
                                 " (RoCE needs an IP address on the port's network interface)");
    }
    index = *picked;
  }
  if (ibv_query_gid(d->ctx, static_cast<uint8_t>(d->port), index, &d->gid) != 0) {
    return Status::Invalid("gid_index " + std::to_string(index) + " is not in the GID table of " + d->name +
                           " port " + std::to_string(d->port));
  }
  d->gid_index = index;
  for (const auto& g : table) {
    if (g.index == index) d->gid_type = g.type;
  }
  return Status::Ok();
}

const char* port_state_name(ibv_port_state s) { return ibv_port_state_str(s); }

// Why libibverbs gave no device (listed: it answered a list, an empty one; list_errno: its errno).
Status no_device_status(bool listed, int list_errno) {
  // libibverbs answers ENOSYS when the kernel has no verbs devices at all; the kernel's own list says it
  // plainer.
  std::vector<RdmaDevice> sysfs;
  // An unreadable list reads as an empty one: either way there is no device to use.
  read_rdma_devices(kSysfsInfinibandRoot, &sysfs).ignore_error();
  if (sysfs.empty()) return Status::Unavailable("no RDMA device (no /sys/class/infiniband entries)");
  if (!listed) {
    return Status::Unavailable(std::string("no RDMA device: ibv_get_device_list: ") +
                               std::strerror(list_errno != 0 ? list_errno : ENODEV));
  }
  return Status::Unavailable("no RDMA device: libibverbs lists none while the kernel lists " + sysfs[0].name +
                             " (is the rdma-core provider for it installed?)");
}

// One device's first active port (choice.port's, when given) made into the fabric in *out. Without one,
// *out stays empty, *port_reason says why where it can, and *no_active_port is set once its ports were
// looked at. An error returned ends the search.
Status open_device_port(const FabricChoice& choice, ibv_device* dv, std::string* port_reason,
                        bool* no_active_port, std::unique_ptr<RdmaFabric>* out) {
  const std::string name = ibv_get_device_name(dv);
  auto d = std::make_shared<Device>();
  d->name = name;
  d->ctx = ibv_open_device(dv);
  if (d->ctx == nullptr) {
    *port_reason = "cannot open " + name + ": " + std::strerror(errno != 0 ? errno : EIO);
    return Status::Ok();
  }
  if (ibv_query_device(d->ctx, &d->dev_attr) != 0) {
    *port_reason = "ibv_query_device(" + name + ") failed";
    return Status::Ok();
  }
  for (int p = 1; p <= d->dev_attr.phys_port_cnt; ++p) {
    if (choice.port != 0 && p != choice.port) continue;
    ibv_port_attr pa{};
    if (ibv_query_port(d->ctx, static_cast<uint8_t>(p), &pa) != 0) continue;
    if (pa.state != IBV_PORT_ACTIVE) {
      if (choice.port != 0) {
        *port_reason = "port " + std::to_string(p) + " of " + name + " is " + port_state_name(pa.state);
      }
      continue;
    }
    d->port = p;
    d->port_attr = pa;
    Status s = choose_gid(choice, d.get());
    if (!s.ok()) return s;
    d->pd = ibv_alloc_pd(d->ctx);
    if (d->pd == nullptr) return errno_status("ibv_alloc_pd(" + name + ")", errno);
    *out = std::make_unique<VerbsFabric>(std::move(d));
    return Status::Ok();
  }
  if (choice.port != 0 && port_reason->empty()) {
    *port_reason = "no port " + std::to_string(choice.port) + " on " + name;
  }
  *no_active_port = true;
  return Status::Ok();
}

}  // namespace

Status open_verbs_fabric(const FabricChoice& choice, std::unique_ptr<RdmaFabric>* out) {
  int num = 0;
  errno = 0;
  ibv_device** list = ibv_get_device_list(&num);
  const int list_errno = errno;
  struct ListFree {
    ibv_device** l;
    ~ListFree() {
      if (l != nullptr) ibv_free_device_list(l);
    }
  } list_free{list};
  if (list == nullptr || num == 0) return no_device_status(list != nullptr, list_errno);
  std::vector<ibv_device*> devs(list, list + num);
  std::sort(devs.begin(), devs.end(), [](ibv_device* a, ibv_device* b) {
    return std::strcmp(ibv_get_device_name(a), ibv_get_device_name(b)) < 0;
  });
  std::string names, inactive, port_reason;
  bool named_found = false;
  for (ibv_device* dv : devs) names += (names.empty() ? "" : ", ") + std::string(ibv_get_device_name(dv));
  for (ibv_device* dv : devs) {
    const std::string name = ibv_get_device_name(dv);
    if (!choice.device.empty() && name != choice.device) continue;
    named_found = true;
    bool no_active_port = false;
    std::unique_ptr<RdmaFabric> opened;
    if (Status s = open_device_port(choice, dv, &port_reason, &no_active_port, &opened); !s.ok()) return s;
    if (opened) {
      *out = std::move(opened);
      return Status::Ok();
    }
    if (no_active_port) inactive += (inactive.empty() ? "" : ", ") + name;
  }
  if (!named_found)
    return Status::Unavailable("no RDMA device named " + choice.device + " (found: " + names + ")");
  if (!port_reason.empty()) return Status::Unavailable(port_reason);
  return Status::Unavailable("no active port on " + inactive);
}

}  // namespace iofab
