#include "harness/rdma/loopback_fabric.h"

#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace iofab {

// Named, not anonymous: LoopbackHub (declared in the header) holds pointers to its endpoints.
namespace loopback {
class LoopbackEndpoint;
}

class LoopbackHub {
 public:
  std::mutex mu;
  uint32_t next_qpn = 0x100;
  uint32_t next_rkey = 1;
  std::map<uint32_t, loopback::LoopbackEndpoint*> by_qpn;  // first qpn of each endpoint
};

namespace loopback {

struct Incoming {
  uint32_t bytes = 0;
  bool has_imm = false;
  uint32_t imm = 0;
};

class LoopbackEndpoint final : public RdmaEndpoint {
 public:
  LoopbackEndpoint(std::shared_ptr<LoopbackHub> hub, const EndpointSpec& spec, bool host_visible)
      : hub_(std::move(hub)), spec_(spec), host_visible_(host_visible) {
    buf_.assign(static_cast<size_t>(2 * spec.qps) * spec.slot_bytes, 0);
    std::lock_guard<std::mutex> lock(hub_->mu);
    info_.lid = 1;
    info_.mtu = 4096;
    info_.addr = reinterpret_cast<uint64_t>(buf_.data());
    info_.rkey = hub_->next_rkey++;
    info_.bytes = buf_.size();
    for (int i = 0; i < spec.qps; ++i)
      info_.qps.push_back({hub_->next_qpn++, 0x1000u + static_cast<uint32_t>(i)});
    hub_->by_qpn[info_.qps[0].qpn] = this;
    posted_.assign(static_cast<size_t>(spec.qps), 0);
    pending_.resize(static_cast<size_t>(spec.qps));
  }
  ~LoopbackEndpoint() override {
    std::lock_guard<std::mutex> lock(hub_->mu);
    if (!info_.qps.empty()) hub_->by_qpn.erase(info_.qps[0].qpn);
    // A peer still pointing here must not touch freed memory.
    for (auto& [qpn, ep] : hub_->by_qpn) {
      if (ep->peer_ == this) ep->peer_ = nullptr;
    }
  }

  const EndpointInfo& info() const override { return info_; }

  Status connect(const EndpointInfo& remote) override {
    std::lock_guard<std::mutex> lock(hub_->mu);
    if (remote.qps.size() != info_.qps.size()) {
      return Status::Invalid("loopback: peer has " + std::to_string(remote.qps.size()) +
                             " queue pairs, we have " + std::to_string(info_.qps.size()));
    }
    auto it = hub_->by_qpn.find(remote.qps[0].qpn);
    if (it == hub_->by_qpn.end() || it->second->info_.rkey != remote.rkey ||
        it->second->info_.addr != remote.addr) {
      return Status::Invalid("loopback: no endpoint with qpn " + std::to_string(remote.qps[0].qpn));
    }
    peer_ = it->second;
    return Status::Ok();
  }

  Status post(const WorkBatch& b) override {
    std::lock_guard<std::mutex> lock(hub_->mu);
    if (peer_ == nullptr) return Status::IoError("loopback: not connected");
    if (b.qp < 0 || b.qp >= spec_.qps || b.bytes > spec_.slot_bytes)
      return Status::Invalid("loopback: bad work batch");
    const size_t q = static_cast<size_t>(b.qp);
    for (uint32_t k = 0; k < b.count; ++k) {
      const bool last = k + 1 == b.count;
      switch (b.op) {
        case RdmaOp::kRead:
          std::memcpy(in_slot(q), peer_->out_slot(q), b.bytes);
          break;
        case RdmaOp::kWrite:
          std::memcpy(peer_->in_slot(q), out_slot(q), b.bytes);
          break;
        case RdmaOp::kWriteImm:
        case RdmaOp::kSend:
        case RdmaOp::kSendImm: {
          std::memcpy(peer_->in_slot(q), out_slot(q), b.bytes);
          const bool imm = b.op != RdmaOp::kSend && (last || b.op == RdmaOp::kWriteImm);
          peer_->pending_[q].push_back({b.bytes, imm, imm ? (last ? b.imm : 0) : 0});
          peer_->deliver(q);
          break;
        }
      }
      if (last && b.signal_last) send_cq_.push_back({b.qp, false, b.wr_id, b.bytes, false, 0});
    }
    return Status::Ok();
  }

  Status post_recv(int qp, uint32_t count) override {
    std::lock_guard<std::mutex> lock(hub_->mu);
    if (qp < 0 || qp >= spec_.qps) return Status::Invalid("loopback: bad queue pair");
    if (posted_[static_cast<size_t>(qp)] + count > spec_.rx_depth) {
      return Status::Invalid("loopback: receive queue overflow");
    }
    posted_[static_cast<size_t>(qp)] += count;
    deliver(static_cast<size_t>(qp));
    return Status::Ok();
  }

  Status poll(bool recv, int max, Completion* out, int* n) override {
    std::lock_guard<std::mutex> lock(hub_->mu);
    auto& cq = recv ? recv_cq_ : send_cq_;
    *n = 0;
    while (*n < max && !cq.empty()) {
      out[(*n)++] = cq.front();
      cq.pop_front();
    }
    return Status::Ok();
  }

  uint32_t max_inline() const override { return 64; }
  bool host_visible() const override { return host_visible_; }
  uint8_t peek(uint64_t offset) const override {
    std::lock_guard<std::mutex> lock(hub_->mu);
    return buf_[offset];
  }
  void poke(uint64_t offset, uint8_t value) override {
    std::lock_guard<std::mutex> lock(hub_->mu);
    buf_[offset] = value;
  }

 private:
  uint8_t* out_slot(size_t q) { return buf_.data() + q * spec_.slot_bytes; }
  uint8_t* in_slot(size_t q) { return buf_.data() + (static_cast<size_t>(spec_.qps) + q) * spec_.slot_bytes; }

  // Matches arrived messages with posted receives (hub lock held).
  void deliver(size_t q) {
    while (posted_[q] > 0 && !pending_[q].empty()) {
      const Incoming m = pending_[q].front();
      pending_[q].pop_front();
      --posted_[q];
      recv_cq_.push_back({static_cast<int>(q), true, 0, m.bytes, m.has_imm, m.imm});
    }
  }

  std::shared_ptr<LoopbackHub> hub_;
  EndpointSpec spec_;
  bool host_visible_;
  std::vector<uint8_t> buf_;
  EndpointInfo info_;
  LoopbackEndpoint* peer_ = nullptr;
  std::vector<uint32_t> posted_;
  std::vector<std::deque<Incoming>> pending_;
  std::deque<Completion> send_cq_;
  std::deque<Completion> recv_cq_;
};

class LoopbackFabric final : public RdmaFabric {
 public:
  LoopbackFabric(std::shared_ptr<LoopbackHub> hub, bool host_visible)
      : hub_(std::move(hub)), host_visible_(host_visible) {}

  nlohmann::json describe() const override {
    return {{"device", "loopback"}, {"port", 1}, {"link_layer", "loopback"}, {"mtu", 4096}};
  }

  Status create_endpoint(const EndpointSpec& spec, std::unique_ptr<RdmaEndpoint>* out) override {
    if (spec.qps < 1 || spec.slot_bytes == 0)
      return Status::Invalid("loopback: qps and slot_bytes must be > 0");
    *out = std::make_unique<LoopbackEndpoint>(hub_, spec, host_visible_);
    return Status::Ok();
  }

 private:
  std::shared_ptr<LoopbackHub> hub_;
  bool host_visible_;
};

}  // namespace loopback

std::shared_ptr<LoopbackHub> make_loopback_hub() { return std::make_shared<LoopbackHub>(); }

std::unique_ptr<RdmaFabric> make_loopback_fabric(std::shared_ptr<LoopbackHub> hub, bool host_visible) {
  return std::make_unique<loopback::LoopbackFabric>(std::move(hub), host_visible);
}

}  // namespace iofab
