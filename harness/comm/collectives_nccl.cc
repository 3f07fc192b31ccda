// The nccl backend: NCCL on device buffers, one GPU per rank. The unique id
// travels over the control-plane Comm (MPI), so this file needs no MPI of
// its own. Calls queue on one stream; CUDA events time them, as nccl-tests
// does, so the host never waits between iterations.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "harness/comm/agree.h"
#include "harness/comm/collectives.h"

namespace iofab {
namespace {

Status cuda_error(const char* call, cudaError_t e) {
  if (e == cudaSuccess) return Status::Ok();
  cudaGetLastError();  // clear a sticky error so the next call is not poisoned
  return Status::IoError(std::string(call) + ": " + cudaGetErrorString(e));
}

Status nccl_error(const char* call, ncclResult_t r, ncclComm_t comm) {
  if (r == ncclSuccess) return Status::Ok();
  std::string msg = std::string(call) + ": " + ncclGetErrorString(r);
  const char* last = comm != nullptr ? ncclGetLastError(comm) : nullptr;
  if (last != nullptr && *last != '\0') msg += std::string(" (") + last + ")";
  return Status::IoError(msg);
}

// NCCL has every iofab type; the float8 ones since 2.24 (an older NCCL refuses them: nccl_has()).
ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::kFloat32:
      return ncclFloat32;
    case DType::kFloat16:
      return ncclFloat16;
    case DType::kBFloat16:
      return ncclBfloat16;
    case DType::kInt32:
      return ncclInt32;
    case DType::kFloat64:
      return ncclFloat64;
    case DType::kInt64:
      return ncclInt64;
#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
    case DType::kFloat8E4M3:
      return ncclFloat8e4m3;
    case DType::kFloat8E5M2:
      return ncclFloat8e5m2;
#else
    case DType::kFloat8E4M3:
    case DType::kFloat8E5M2:
      return ncclUint8;
#endif
  }
  return ncclFloat32;
}

Status nccl_has(DType t) {
#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
  (void)t;
  return Status::Ok();
#else
  if (!dtype_is_float8(t)) return Status::Ok();
  return Status::Unavailable(std::string(dtype_name(t)) + " needs NCCL 2.24 or later (built with " +
                             std::to_string(NCCL_VERSION_CODE) + ")");
#endif
}

ncclRedOp_t nccl_op(RedOp op) {
  switch (op) {
    case RedOp::kSum:
      return ncclSum;
    case RedOp::kProd:
      return ncclProd;
    case RedOp::kMin:
      return ncclMin;
    case RedOp::kMax:
      return ncclMax;
    case RedOp::kAvg:
      return ncclAvg;
  }
  return ncclSum;
}

class NcclCollectives final : public Collectives {
 public:
  ~NcclCollectives() override {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    if (comm_ != nullptr) ncclCommDestroy(comm_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  Status init(Comm& world, int device) {
    rank_ = world.rank();
    size_ = world.size();
    device_ = device;
    Status s = cuda_error("cudaSetDevice", cudaSetDevice(device));
    // Every rank takes part in the id broadcast even when its device failed, so none waits forever.
    ncclUniqueId id{};
    if (s.ok() && rank_ == 0) s = nccl_error("ncclGetUniqueId", ncclGetUniqueId(&id), nullptr);
    std::string wire(reinterpret_cast<const char*>(&id), sizeof id);
    if (Status b = world.broadcast(&wire, 0); !b.ok()) return b;
    // A rank whose GPU is not ready stops every rank; its own error stays its own.
    const AgreeRule first_unready = [](const std::vector<Status>& by_rank) {
      for (size_t r = 0; r < by_rank.size(); ++r) {
        if (!by_rank[r].ok()) {
          return Status::IoError("rank " + std::to_string(r) + " could not prepare its GPU");
        }
      }
      return Status::Ok();
    };
    Ballot ready;
    if (Status g = agree(world, Ballot{s}, first_unready, &ready); !g.ok()) return g;
    if (s.ok()) s = ready.status;
    if (!s.ok()) return s;
    if (wire.size() != sizeof id) return Status::Internal("NCCL unique id arrived truncated");
    std::memcpy(&id, wire.data(), sizeof id);
    s = cuda_error("cudaStreamCreateWithFlags", cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    if (!s.ok()) return s;
    return nccl_error("ncclCommInitRank", ncclCommInitRank(&comm_, size_, id, rank_), nullptr);
  }

  std::string_view name() const override { return "nccl"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  MemoryKind memory() const override { return MemoryKind::kDevice; }
  std::string describe() const override {
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, device_);
    char bus[32] = {};
    cudaDeviceGetPCIBusId(bus, sizeof bus, device_);
    int v = 0;
    ncclGetVersion(&v);
    // NCCL >= 2.9 encodes versions as major*10000 + minor*100 + patch.
    return std::string(prop.name) + " (" + bus + "), NCCL " + std::to_string(v / 10000) + "." +
           std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
  }

  Status allocate(size_t bytes, Buffer* out) override {
    void* p = nullptr;
    Status s = cuda_error("cudaMalloc", cudaMalloc(&p, std::max<size_t>(bytes, 1)));
    if (!s.ok()) return Status::IoError(s.message() + " (" + std::to_string(bytes) + " bytes)");
    s = cuda_error("cudaMemset", cudaMemset(p, 0, std::max<size_t>(bytes, 1)));
    if (!s.ok()) {
      cudaFree(p);
      return s;
    }
    *out = Buffer{p, bytes, MemoryKind::kDevice};
    return Status::Ok();
  }
  void release(Buffer* b) override {
    if (b->data != nullptr) cudaFree(b->data);
    *b = Buffer{};
  }
  Status upload(const Buffer& dst, const void* src, size_t bytes) override {
    return cuda_error("cudaMemcpy", cudaMemcpy(dst.data, src, bytes, cudaMemcpyHostToDevice));
  }
  Status download(void* dst, const Buffer& src, size_t bytes) override {
    return cuda_error("cudaMemcpy", cudaMemcpy(dst, src.data, bytes, cudaMemcpyDeviceToHost));
  }

  Status all_reduce(const Buffer& send, const Buffer& recv, size_t count, DType t, RedOp op) override {
    if (Status s = nccl_has(t); !s.ok()) return s;
    return nccl_error("ncclAllReduce",
                      ncclAllReduce(send.data, recv.data, count, nccl_type(t), nccl_op(op), comm_, stream_),
                      comm_);
  }
  Status all_gather(const Buffer& send, const Buffer& recv, size_t send_count, DType t) override {
    return nccl_error("ncclAllGather",
                      ncclAllGather(send.data, recv.data, send_count, nccl_type(t), comm_, stream_), comm_);
  }
  Status reduce_scatter(const Buffer& send, const Buffer& recv, size_t recv_count, DType t,
                        RedOp op) override {
    if (Status s = nccl_has(t); !s.ok()) return s;
    return nccl_error(
        "ncclReduceScatter",
        ncclReduceScatter(send.data, recv.data, recv_count, nccl_type(t), nccl_op(op), comm_, stream_),
        comm_);
  }
  Status broadcast(const Buffer& buf, size_t count, DType t, int root) override {
    return nccl_error("ncclBroadcast",
                      ncclBroadcast(buf.data, buf.data, count, nccl_type(t), root, comm_, stream_), comm_);
  }
  Status reduce(const Buffer& send, const Buffer& recv, size_t count, DType t, RedOp op, int root) override {
    if (Status s = nccl_has(t); !s.ok()) return s;
    return nccl_error(
        "ncclReduce",
        ncclReduce(send.data, recv.data, count, nccl_type(t), nccl_op(op), root, comm_, stream_), comm_);
  }
  Status all_to_all(const Buffer& send, const Buffer& recv, size_t per_rank, DType t) override {
#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
    // NCCL 2.28 has an all-to-all of its own, which nccl-tests' alltoall now calls.
    return nccl_error("ncclAlltoAll",
                      ncclAlltoAll(send.data, recv.data, per_rank, nccl_type(t), comm_, stream_), comm_);
#else
    // Before 2.28: point-to-point pairs in one group, as nccl-tests' alltoall did (NCCL 2.7 and on).
    const size_t block = per_rank * dtype_size(t);
    Status s = nccl_error("ncclGroupStart", ncclGroupStart(), comm_);
    for (int p = 0; p < size_ && s.ok(); ++p) {
      s = nccl_error("ncclSend",
                     ncclSend(static_cast<const char*>(send.data) + p * block, per_rank, nccl_type(t), p,
                              comm_, stream_),
                     comm_);
      if (s.ok()) {
        s = nccl_error(
            "ncclRecv",
            ncclRecv(static_cast<char*>(recv.data) + p * block, per_rank, nccl_type(t), p, comm_, stream_),
            comm_);
      }
    }
    Status end = nccl_error("ncclGroupEnd", ncclGroupEnd(), comm_);
    return s.ok() ? end : s;
#endif
  }

  Status gather(const Buffer& send, const Buffer& recv, size_t count, DType t, int root) override {
#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
    return nccl_error("ncclGather",
                      ncclGather(send.data, recv.data, count, nccl_type(t), root, comm_, stream_), comm_);
#else
    // Before 2.28: a send to the root, and the root's receives, in one group (nccl-tests' gather).
    const size_t block = count * dtype_size(t);
    Status s = nccl_error("ncclGroupStart", ncclGroupStart(), comm_);
    if (s.ok())
      s = nccl_error("ncclSend", ncclSend(send.data, count, nccl_type(t), root, comm_, stream_), comm_);
    for (int p = 0; p < size_ && s.ok() && rank_ == root; ++p) {
      s = nccl_error(
          "ncclRecv",
          ncclRecv(static_cast<char*>(recv.data) + p * block, count, nccl_type(t), p, comm_, stream_), comm_);
    }
    Status end = nccl_error("ncclGroupEnd", ncclGroupEnd(), comm_);
    return s.ok() ? end : s;
#endif
  }
  Status scatter(const Buffer& send, const Buffer& recv, size_t count, DType t, int root) override {
#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
    return nccl_error("ncclScatter",
                      ncclScatter(send.data, recv.data, count, nccl_type(t), root, comm_, stream_), comm_);
#else
    // Before 2.28: the root's sends, and a receive from the root, in one group (nccl-tests' scatter).
    const size_t block = count * dtype_size(t);
    Status s = nccl_error("ncclGroupStart", ncclGroupStart(), comm_);
    for (int p = 0; p < size_ && s.ok() && rank_ == root; ++p) {
      s = nccl_error(
          "ncclSend",
          ncclSend(static_cast<const char*>(send.data) + p * block, count, nccl_type(t), p, comm_, stream_),
          comm_);
    }
    if (s.ok())
      s = nccl_error("ncclRecv", ncclRecv(recv.data, count, nccl_type(t), root, comm_, stream_), comm_);
    Status end = nccl_error("ncclGroupEnd", ncclGroupEnd(), comm_);
    return s.ok() ? end : s;
#endif
  }
  Status send_recv(const Buffer& send, const Buffer& recv, size_t count, DType t) override {
    // nccl-tests' sendrecv: to rank + 1, from rank - 1, in one group.
    const int to = (rank_ + 1) % size_, from = (rank_ - 1 + size_) % size_;
    Status s = nccl_error("ncclGroupStart", ncclGroupStart(), comm_);
    if (s.ok())
      s = nccl_error("ncclSend", ncclSend(send.data, count, nccl_type(t), to, comm_, stream_), comm_);
    if (s.ok())
      s = nccl_error("ncclRecv", ncclRecv(recv.data, count, nccl_type(t), from, comm_, stream_), comm_);
    Status end = nccl_error("ncclGroupEnd", ncclGroupEnd(), comm_);
    return s.ok() ? end : s;
  }

  Status synchronize() override {
    Status s = cuda_error("cudaStreamSynchronize", cudaStreamSynchronize(stream_));
    if (!s.ok()) return s;
    ncclResult_t async = ncclSuccess;
    ncclCommGetAsyncError(comm_, &async);
    return nccl_error("NCCL", async, comm_);
  }

  Status mark(size_t slot) override {
    while (events_.size() <= slot) {
      cudaEvent_t e = nullptr;
      Status s = cuda_error("cudaEventCreate", cudaEventCreate(&e));
      if (!s.ok()) return s;
      events_.push_back(e);
    }
    return cuda_error("cudaEventRecord", cudaEventRecord(events_[slot], stream_));
  }

  Status seconds_between(size_t a, size_t b, double* seconds) override {
    if (a >= events_.size() || b >= events_.size()) return Status::Internal("seconds_between: no such mark");
    Status s = cuda_error("cudaEventSynchronize", cudaEventSynchronize(events_[b]));
    if (!s.ok()) return s;
    float ms = 0;
    s = cuda_error("cudaEventElapsedTime", cudaEventElapsedTime(&ms, events_[a], events_[b]));
    *seconds = static_cast<double>(ms) * 1e-3;
    return s;
  }

 private:
  int rank_ = 0;
  int size_ = 1;
  int device_ = 0;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  std::vector<cudaEvent_t> events_;
};

}  // namespace

Status make_nccl_collectives(Comm& comm, int device, std::unique_ptr<Collectives>* out) {
  auto c = std::make_unique<NcclCollectives>();
  Status s = c->init(comm, device);
  if (!s.ok()) return s;
  *out = std::move(c);
  return Status::Ok();
}

}  // namespace iofab
