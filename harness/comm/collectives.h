// Collectives: the data plane of the `collectives` phase. Where Comm (comm.h)
// starts phases together and brings results to rank 0, Collectives moves
// training-sized buffers with the fabric's own library: MPI's collectives on
// host memory (collectives_mpi.cc) or NCCL on one GPU per rank
// (collectives_nccl.cc). Every rank must issue the same calls in the same
// order, as with any collective library.
//
// Calls may return before the data has moved (NCCL queues them on a stream);
// synchronize() waits, and mark()/seconds_between() time the calls on the
// backend's own timeline without a wait per call, as nccl-tests does.
//
// Thread-safety: call from one thread (the runner's); MPI is initialised
// MPI_THREAD_FUNNELED.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/comm/comm.h"
#include "harness/core/status.h"

namespace iofab {

// nccl-tests' types, less the unsigned and 8-bit integer ones. The float8 types move on NCCL only
// (2.24 and later): MPI has no 8-bit float type.
enum class DType { kFloat32, kFloat16, kBFloat16, kInt32, kFloat64, kInt64, kFloat8E4M3, kFloat8E5M2 };

size_t dtype_size(DType t);
// "float32", "float16", "bfloat16", "int32", "float64", "int64", "float8_e4m3", "float8_e5m2"
std::string_view dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view name);
const std::vector<DType>& all_dtypes();
bool dtype_is_float8(DType t);

// A reduction's operator, as nccl-tests' -o (ncclSum, ncclProd, ncclMin, ncclMax, ncclAvg).
enum class RedOp { kSum, kProd, kMin, kMax, kAvg };
std::string_view redop_name(RedOp op);  // "sum", "prod", "min", "max", "avg"
std::optional<RedOp> parse_redop(std::string_view name);

enum class MemoryKind { kHost, kDevice };

// A buffer the backend allocated; it owns the memory, the Buffer only names it.
struct Buffer {
  void* data = nullptr;
  size_t bytes = 0;
  MemoryKind kind = MemoryKind::kHost;
};

class Collectives {
 public:
  Collectives() = default;
  Collectives(const Collectives&) = delete;
  Collectives& operator=(const Collectives&) = delete;
  virtual ~Collectives() = default;

  virtual std::string_view name() const = 0;  // "mpi", "nccl"
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual MemoryKind memory() const = 0;  // where allocate() puts buffers
  // What the backend runs on, for the report: "host memory, Open MPI v4.1.4", "NVIDIA H100 (0000:1b:00.0),
  // NCCL 2.28.3".
  virtual std::string describe() const = 0;

  // Zeroed memory of memory() kind; release() frees it (and resets *b).
  virtual Status allocate(size_t bytes, Buffer* out) = 0;
  virtual void release(Buffer* b) = 0;
  virtual Status upload(const Buffer& dst, const void* src, size_t bytes) = 0;
  virtual Status download(void* dst, const Buffer& src, size_t bytes) = 0;

  // Counts are elements. Reductions apply op (avg: the sum over the ranks / ranks). Out of place: send and
  // recv differ. In place, as NCCL lays it out: all_reduce and reduce pass one buffer as both; all_gather
  // sends from its own block of recv (recv + rank * send_count); reduce_scatter leaves its block in its own
  // block of send (recv = send + rank * recv_count). A backend whose library wants another layout (MPI's
  // MPI_IN_PLACE) makes this one from it.
  virtual Status all_reduce(const Buffer& send, const Buffer& recv, size_t count, DType t, RedOp op) = 0;
  // recv holds size() * send_count elements, rank r's at r * send_count.
  virtual Status all_gather(const Buffer& send, const Buffer& recv, size_t send_count, DType t) = 0;
  // send holds size() * recv_count elements; rank r gets the reduction of every rank's r-th block.
  virtual Status reduce_scatter(const Buffer& send, const Buffer& recv, size_t recv_count, DType t,
                                RedOp op) = 0;
  // In place: root's buf replaces every other rank's.
  virtual Status broadcast(const Buffer& buf, size_t count, DType t, int root) = 0;
  // root's recv gets the reduction of every rank's send; the other ranks' recv is left as it was.
  virtual Status reduce(const Buffer& send, const Buffer& recv, size_t count, DType t, RedOp op,
                        int root) = 0;
  // send and recv hold size() blocks of per_rank elements; block p goes to rank p.
  virtual Status all_to_all(const Buffer& send, const Buffer& recv, size_t per_rank, DType t) = 0;
  // root's recv holds size() * count elements, rank r's send at r * count; the others' recv is left.
  virtual Status gather(const Buffer& send, const Buffer& recv, size_t count, DType t, int root) = 0;
  // root's send holds size() * count elements; rank r's recv gets block r of it.
  virtual Status scatter(const Buffer& send, const Buffer& recv, size_t count, DType t, int root) = 0;
  // Each rank sends count elements to rank + 1 and receives as many from rank - 1 (in a ring), at once.
  virtual Status send_recv(const Buffer& send, const Buffer& recv, size_t count, DType t) = 0;

  // Waits until every call issued so far has finished on this rank.
  virtual Status synchronize() = 0;
  // Records a timestamp after every call issued so far, in slot (0, 1, ...).
  virtual Status mark(size_t slot) = 0;
  // Seconds from mark a to mark b; waits for b if it has not happened yet.
  virtual Status seconds_between(size_t a, size_t b, double* seconds) = 0;
};

// A Buffer that releases itself.
class OwnedBuffer {
 public:
  OwnedBuffer() = default;
  OwnedBuffer(const OwnedBuffer&) = delete;
  OwnedBuffer& operator=(const OwnedBuffer&) = delete;
  ~OwnedBuffer() { reset(); }
  Status allocate(Collectives& c, size_t bytes);
  void reset();
  const Buffer& get() const { return buf_; }

 private:
  Collectives* owner_ = nullptr;
  Buffer buf_;
};

bool nccl_built();

// This rank's view of a GPU for NCCL: "" when it has one of its own (device
// index in *device), else why not ("no CUDA device: ...", "built without NCCL").
// local_rank and local_size: this rank among the ranks on its host.
std::string gpu_for_rank(int local_rank, int local_size, int* device);

struct BackendChoice {
  std::string backend;  // "mpi" or "nccl"; empty when skipped
  std::string reason;   // why this backend
  std::string skip;     // non-empty: the phase cannot run, and why
};

// requested: "auto" or a row's name; have_nccl: whether the backends that need a GPU are built; gpu_status:
// gpu_for_rank()'s answer on every rank.
BackendChoice choose_backend(std::string_view requested, bool have_nccl,
                             const std::vector<std::string>& gpu_status);

// A collectives backend: one row in collectives.cc's table, as an op is one row in the ops' table. What
// the phase and the choice below ask of a backend is a column here, never its name.
struct CollectiveBackend {
  std::string_view name;   // "mpi", "nccl": the suite's `backend`
  std::string_view shown;  // "MPI", "NCCL": as messages name it
  // Every rank needs a GPU of its own (gpu_for_rank); `auto` takes such a backend when every rank has one
  // and it is built, else the first that needs none.
  bool needs_own_gpu = false;
  bool one_rank = false;  // measures on one rank (as nccl-tests does on one GPU); else needs >= 2 ranks
  bool float8 = false;    // reduces 8-bit floats
  // The backend on the world comm. device: the GPU, for a backend that needs one.
  Status (*make)(Comm& comm, int device, std::unique_ptr<Collectives>* out) = nullptr;
};

// The table, in the order the suite's `backend` lists them.
const std::vector<CollectiveBackend>& collective_backends();
// nullptr for a name no row has ("auto").
const CollectiveBackend* find_collective_backend(std::string_view name);

// Creates the backend on the world comm (which must be the MPI one). device: the GPU, for nccl.
Status make_collectives(std::string_view backend, Comm& comm, int device, std::unique_ptr<Collectives>* out);

}  // namespace iofab
