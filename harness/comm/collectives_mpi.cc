// The mpi backend: MPI's own collectives on host buffers, over a duplicate of MPI_COMM_WORLD.
// MPI has no 16-bit floats, so float16 and bfloat16 travel as MPI_UINT16_T
// and are reduced by user ops (float arithmetic, rounded to nearest even),
// which MPI runs inside its own reduction algorithms. MPI has no average
// either: avg is MPI_SUM, then each rank divides its result by the number of
// ranks, inside the call (and so inside the timed span). MPI has no 8-bit
// float type at all: the float8 types are refused.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "harness/comm/collectives.h"
#include "harness/comm/half_float.h"

namespace iofab {
namespace {

Status mpi_error(const char* call, int rc) {
  if (rc == MPI_SUCCESS) return Status::Ok();
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return Status::IoError(std::string(call) + ": " + std::string(text, static_cast<size_t>(len)));
}

// MPI calls a user op on chunks of its own choosing; this reduces one, element by element in float.
template <float (*Load)(uint16_t), uint16_t (*Store)(float), RedOp kOp>
void reduce_16bit(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const uint16_t*>(in);
  auto* b = static_cast<uint16_t*>(inout);
  for (int i = 0; i < *len; ++i) {
    const float x = Load(a[i]), y = Load(b[i]);
    b[i] = Store(kOp == RedOp::kProd  ? x * y
                 : kOp == RedOp::kMin ? std::min(x, y)
                 : kOp == RedOp::kMax ? std::max(x, y)
                                      : x + y);
  }
}

// The 16-bit user ops, by type and operator (avg sums, then divides).
template <float (*Load)(uint16_t), uint16_t (*Store)(float)>
struct Ops16 {
  static constexpr MPI_User_function* kFns[] = {
      &reduce_16bit<Load, Store, RedOp::kSum>, &reduce_16bit<Load, Store, RedOp::kProd>,
      &reduce_16bit<Load, Store, RedOp::kMin>, &reduce_16bit<Load, Store, RedOp::kMax>};
};

// MPI has no average: the sum, divided by the number of ranks in place (integers truncate, as NCCL's).
template <typename T>
void divide(void* data, size_t count, int ranks) {
  auto* p = static_cast<T*>(data);
  for (size_t i = 0; i < count; ++i) p[i] = static_cast<T>(p[i] / static_cast<T>(ranks));
}
template <float (*Load)(uint16_t), uint16_t (*Store)(float)>
void divide_16bit(void* data, size_t count, int ranks) {
  auto* p = static_cast<uint16_t*>(data);
  for (size_t i = 0; i < count; ++i) p[i] = Store(Load(p[i]) / static_cast<float>(ranks));
}

void divide_by_ranks(void* data, size_t count, DType t, int ranks) {
  switch (t) {
    case DType::kFloat32:
      return divide<float>(data, count, ranks);
    case DType::kFloat64:
      return divide<double>(data, count, ranks);
    case DType::kInt32:
      return divide<int32_t>(data, count, ranks);
    case DType::kInt64:
      return divide<int64_t>(data, count, ranks);
    case DType::kFloat16:
      return divide_16bit<fp16_to_float, float_to_fp16>(data, count, ranks);
    case DType::kBFloat16:
      return divide_16bit<bf16_to_float, float_to_bf16>(data, count, ranks);
    case DType::kFloat8E4M3:
    case DType::kFloat8E5M2:
      return;
  }
}

// MPI 3 counts are int; the largest call moves INT_MAX elements per rank.
Status fits_int(size_t count, const char* op) {
  if (count <= static_cast<size_t>(INT_MAX)) return Status::Ok();
  return Status::Invalid(std::string(op) + ": " + std::to_string(count) +
                         " elements per rank is more than MPI's int count allows; use a smaller size");
}

class MpiCollectives final : public Collectives {
 public:
  MpiCollectives() {
    // A communicator of its own, so the data plane never meets the control plane's messages.
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    for (size_t k = 0; k < kOps16; ++k) {
      MPI_Op_create(Ops16<fp16_to_float, float_to_fp16>::kFns[k], 1, &fp16_ops_[k]);
      MPI_Op_create(Ops16<bf16_to_float, float_to_bf16>::kFns[k], 1, &bf16_ops_[k]);
    }
  }
  ~MpiCollectives() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    for (size_t k = 0; k < kOps16; ++k) {
      MPI_Op_free(&fp16_ops_[k]);
      MPI_Op_free(&bf16_ops_[k]);
    }
    MPI_Comm_free(&comm_);
  }

  std::string_view name() const override { return "mpi"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  MemoryKind memory() const override { return MemoryKind::kHost; }
  std::string describe() const override {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    MPI_Get_library_version(version, &len);
    std::string v(version, static_cast<size_t>(len));
    if (auto nl = v.find_first_of("\r\n,"); nl != std::string::npos) v.resize(nl);
    return "host memory, " + v;
  }

  Status allocate(size_t bytes, Buffer* out) override {
    void* p = nullptr;
    const size_t rounded = (std::max<size_t>(bytes, 1) + 4095) / 4096 * 4096;
    if (posix_memalign(&p, 4096, rounded) != 0) {
      return Status::IoError("cannot allocate " + std::to_string(bytes) + " bytes of host memory");
    }
    // Touch every page now, so page faults never land inside a timed call.
    std::memset(p, 0, rounded);
    *out = Buffer{p, bytes, MemoryKind::kHost};
    return Status::Ok();
  }
  void release(Buffer* b) override {
    std::free(b->data);
    *b = Buffer{};
  }
  Status upload(const Buffer& dst, const void* src, size_t bytes) override {
    std::memcpy(dst.data, src, bytes);
    return Status::Ok();
  }
  Status download(void* dst, const Buffer& src, size_t bytes) override {
    std::memcpy(dst, src.data, bytes);
    return Status::Ok();
  }

  // In place (send and recv one buffer, as collectives.h lays them out) MPI needs MPI_IN_PLACE: it
  // forbids aliased buffers.
  Status all_reduce(const Buffer& send, const Buffer& recv, size_t count, DType t, RedOp op) override {
    if (Status s = mpi_has(t); !s.ok()) return s;
    const bool in_place = send.data == recv.data;
    Status s = in_int_pieces(count, t, send, recv, [&](const void* from, void* to, int n) {
      return mpi_error("MPI_Allreduce",
                       MPI_Allreduce(in_place ? MPI_IN_PLACE : from, to, n, type(t), mpi_op(t, op), comm_));
    });
    if (s.ok() && op == RedOp::kAvg) divide_by_ranks(recv.data, count, t, size_);
    return s;
  }

  Status all_gather(const Buffer& send, const Buffer& recv, size_t send_count, DType t) override {
    if (Status s = mpi_has(t); !s.ok()) return s;
    if (Status s = fits_int(send_count, "all_gather"); !s.ok()) return s;
    const int n = static_cast<int>(send_count);
    const bool in_place = send.data == at(recv, static_cast<size_t>(rank_) * send_count, t);
    return mpi_error("MPI_Allgather", MPI_Allgather(in_place ? MPI_IN_PLACE : send.data, n, type(t),
                                                    recv.data, n, type(t), comm_));
  }

  Status reduce_scatter(const Buffer& send, const Buffer& recv, size_t recv_count, DType t,
                        RedOp op) override {
    if (Status s = mpi_has(t); !s.ok()) return s;
    if (Status s = fits_int(recv_count, "reduce_scatter"); !s.ok()) return s;
    const int n = static_cast<int>(recv_count);
    Status s;
    if (recv.data != at(send, static_cast<size_t>(rank_) * recv_count, t)) {
      s = mpi_error("MPI_Reduce_scatter_block",
                    MPI_Reduce_scatter_block(send.data, recv.data, n, type(t), mpi_op(t, op), comm_));
    } else {
      // In place, MPI leaves rank r's block at the start of the buffer, where NCCL (and nccl-tests)
      // leave it at block r: the move to block r is part of the op's time here.
      s = mpi_error("MPI_Reduce_scatter_block",
                    MPI_Reduce_scatter_block(MPI_IN_PLACE, send.data, n, type(t), mpi_op(t, op), comm_));
      if (s.ok() && rank_ != 0) std::memcpy(recv.data, send.data, recv_count * dtype_size(t));
    }
    if (s.ok() && op == RedOp::kAvg) divide_by_ranks(recv.data, recv_count, t, size_);
    return s;
  }

  Status broadcast(const Buffer& buf, size_t count, DType t, int root) override {
    if (Status s = mpi_has(t); !s.ok()) return s;
    if (Status s = fits_int(count, "broadcast"); !s.ok()) return s;
    return mpi_error("MPI_Bcast", MPI_Bcast(buf.data, static_cast<int>(count), type(t), root, comm_));
  }

  Status reduce(const Buffer& send, const Buffer& recv, size_t count, DType t, RedOp op, int root) override {
    if (Status s = mpi_has(t); !s.ok()) return s;
    // In place only the root passes MPI_IN_PLACE; the others' send is their input as always.
    const bool in_place = send.data == recv.data && rank_ == root;
    Status s = in_int_pieces(count, t, send, recv, [&](const void* from, void* to, int n) {
      return mpi_error("MPI_Reduce", MPI_Reduce(in_place ? MPI_IN_PLACE : from, to, n, type(t), mpi_op(t, op),
                                                root, comm_));
    });
    if (s.ok() && op == RedOp::kAvg && rank_ == root) divide_by_ranks(recv.data, count, t, size_);
    return s;
  }

  Status all_to_all(const Buffer& send, const Buffer& recv, size_t per_rank, DType t) override {
    if (Status s = mpi_has(t); !s.ok()) return s;
    if (Status s = fits_int(per_rank, "all_to_all"); !s.ok()) return s;
    const int n = static_cast<int>(per_rank);
    return mpi_error("MPI_Alltoall", MPI_Alltoall(send.data, n, type(t), recv.data, n, type(t), comm_));
  }

  Status gather(const Buffer& send, const Buffer& recv, size_t count, DType t, int root) override {
    if (Status s = mpi_has(t); !s.ok()) return s;
    if (Status s = fits_int(count, "gather"); !s.ok()) return s;
    const int n = static_cast<int>(count);
    return mpi_error("MPI_Gather", MPI_Gather(send.data, n, type(t), recv.data, n, type(t), root, comm_));
  }

  Status scatter(const Buffer& send, const Buffer& recv, size_t count, DType t, int root) override {
    if (Status s = mpi_has(t); !s.ok()) return s;
    if (Status s = fits_int(count, "scatter"); !s.ok()) return s;
    const int n = static_cast<int>(count);
    return mpi_error("MPI_Scatter", MPI_Scatter(send.data, n, type(t), recv.data, n, type(t), root, comm_));
  }

  Status send_recv(const Buffer& send, const Buffer& recv, size_t count, DType t) override {
    if (Status s = mpi_has(t); !s.ok()) return s;
    if (Status s = fits_int(count, "sendrecv"); !s.ok()) return s;
    const int n = static_cast<int>(count);
    const int to = (rank_ + 1) % size_, from = (rank_ - 1 + size_) % size_;
    return mpi_error("MPI_Sendrecv", MPI_Sendrecv(send.data, n, type(t), to, 0, recv.data, n, type(t), from,
                                                  0, comm_, MPI_STATUS_IGNORE));
  }

  // MPI's collectives are blocking: when a call returns, its data has moved.
  Status synchronize() override { return Status::Ok(); }

  Status mark(size_t slot) override {
    if (slot >= marks_.size()) marks_.resize(slot + 1);
    marks_[slot] = std::chrono::steady_clock::now();
    return Status::Ok();
  }

  Status seconds_between(size_t a, size_t b, double* seconds) override {
    if (a >= marks_.size() || b >= marks_.size()) return Status::Internal("seconds_between: no such mark");
    *seconds = std::chrono::duration<double>(marks_[b] - marks_[a]).count();
    return Status::Ok();
  }

 private:
  // A reduction splits cleanly, so counts beyond MPI's int go in pieces: call(send, recv, n) per piece.
  template <typename Call>
  static Status in_int_pieces(size_t count, DType t, const Buffer& send, const Buffer& recv, Call call) {
    const size_t chunk = static_cast<size_t>(INT_MAX) / 2;
    const size_t es = dtype_size(t);
    size_t done = 0;
    do {
      const size_t n = std::min(chunk, count - done);
      Status s = call(static_cast<const char*>(send.data) + done * es,
                      static_cast<char*>(recv.data) + done * es, static_cast<int>(n));
      if (!s.ok()) return s;
      done += n;
    } while (done < count);
    return Status::Ok();
  }

  static const void* at(const Buffer& b, size_t elements, DType t) {
    return static_cast<const char*>(b.data) + elements * dtype_size(t);
  }

  static Status mpi_has(DType t) {
    if (!dtype_is_float8(t)) return Status::Ok();
    return Status::Unavailable(std::string(dtype_name(t)) +
                               " needs the nccl backend: MPI has no 8-bit float type");
  }

  static MPI_Datatype type(DType t) {
    switch (t) {
      case DType::kFloat32:
        return MPI_FLOAT;
      case DType::kFloat64:
        return MPI_DOUBLE;
      case DType::kInt32:
        return MPI_INT32_T;
      case DType::kInt64:
        return MPI_INT64_T;
      case DType::kFloat16:
      case DType::kBFloat16:
        return MPI_UINT16_T;
      case DType::kFloat8E4M3:
      case DType::kFloat8E5M2:
        return MPI_BYTE;
    }
    return MPI_BYTE;
  }
  // avg reduces as sum (the caller divides after).
  MPI_Op mpi_op(DType t, RedOp op) const {
    const size_t k = op == RedOp::kAvg ? 0 : static_cast<size_t>(op);
    if (t == DType::kFloat16) return fp16_ops_[k];
    if (t == DType::kBFloat16) return bf16_ops_[k];
    static const MPI_Op kBuiltIn[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX};
    return kBuiltIn[k];
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  static constexpr size_t kOps16 = 4;  // sum, prod, min, max: RedOp's order
  MPI_Op fp16_ops_[kOps16] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
  MPI_Op bf16_ops_[kOps16] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
  std::vector<std::chrono::steady_clock::time_point> marks_;
};

}  // namespace

Status make_mpi_collectives(std::unique_ptr<Collectives>* out) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    return Status::Unavailable("the mpi backend needs MPI initialised (ranks started by mpirun)");
  *out = std::make_unique<MpiCollectives>();
  return Status::Ok();
}

}  // namespace iofab
