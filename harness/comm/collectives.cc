#include "harness/comm/collectives.h"

#include "harness/gpu/devices.h"

namespace iofab {

#ifdef IOFAB_HAVE_MPI
Status make_mpi_collectives(std::unique_ptr<Collectives>* out);
#endif
#ifdef IOFAB_HAVE_NCCL
Status make_nccl_collectives(Comm& comm, int device, std::unique_ptr<Collectives>* out);
#endif

size_t dtype_size(DType t) {
  switch (t) {
    case DType::kFloat32:
    case DType::kInt32:
      return 4;
    case DType::kFloat16:
    case DType::kBFloat16:
      return 2;
    case DType::kFloat64:
    case DType::kInt64:
      return 8;
    case DType::kFloat8E4M3:
    case DType::kFloat8E5M2:
      return 1;
  }
  return 4;
}

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "float32";
    case DType::kFloat16:
      return "float16";
    case DType::kBFloat16:
      return "bfloat16";
    case DType::kInt32:
      return "int32";
    case DType::kFloat64:
      return "float64";
    case DType::kInt64:
      return "int64";
    case DType::kFloat8E4M3:
      return "float8_e4m3";
    case DType::kFloat8E5M2:
      return "float8_e5m2";
  }
  return "float32";
}

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> kAll = {DType::kFloat32,    DType::kFloat16,   DType::kBFloat16,
                                          DType::kInt32,      DType::kFloat64,   DType::kInt64,
                                          DType::kFloat8E4M3, DType::kFloat8E5M2};
  return kAll;
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType t : all_dtypes()) {
    if (dtype_name(t) == name) return t;
  }
  return std::nullopt;
}

bool dtype_is_float8(DType t) { return t == DType::kFloat8E4M3 || t == DType::kFloat8E5M2; }

std::string_view redop_name(RedOp op) {
  switch (op) {
    case RedOp::kSum:
      return "sum";
    case RedOp::kProd:
      return "prod";
    case RedOp::kMin:
      return "min";
    case RedOp::kMax:
      return "max";
    case RedOp::kAvg:
      return "avg";
  }
  return "sum";
}

std::optional<RedOp> parse_redop(std::string_view name) {
  for (RedOp op : {RedOp::kSum, RedOp::kProd, RedOp::kMin, RedOp::kMax, RedOp::kAvg}) {
    if (redop_name(op) == name) return op;
  }
  return std::nullopt;
}

Status OwnedBuffer::allocate(Collectives& c, size_t bytes) {
  reset();
  Status s = c.allocate(bytes, &buf_);
  if (s.ok()) owner_ = &c;
  return s;
}

void OwnedBuffer::reset() {
  if (owner_ != nullptr) owner_->release(&buf_);
  owner_ = nullptr;
  buf_ = Buffer{};
}

bool nccl_built() {
#ifdef IOFAB_HAVE_NCCL
  return true;
#else
  return false;
#endif
}

std::string gpu_for_rank(int local_rank, int local_size, int* device) {
#ifdef IOFAB_HAVE_NCCL
  const auto devices = list_cuda_devices();
  if (devices.empty()) {
    std::string why = cuda_status();
    return why.rfind("no CUDA device", 0) == 0 ? why : "no CUDA device: " + why;
  }
  // NCCL refuses two ranks on one GPU, so a rank needs a device of its own.
  if (static_cast<size_t>(local_rank) >= devices.size()) {
    return "no CUDA device of its own: " + std::to_string(local_size) + " ranks on this host, " +
           std::to_string(devices.size()) + " CUDA device" + (devices.size() == 1 ? "" : "s");
  }
  *device = devices[static_cast<size_t>(local_rank)].index;
  return "";
#else
  (void)local_rank;
  (void)local_size;
  (void)device;
  return "built without NCCL (nccl.h and libnccl were not found when iofab was configured)";
#endif
}

namespace {

Status make_mpi_backend(Comm& comm, int device, std::unique_ptr<Collectives>* out) {
  (void)device;
#ifdef IOFAB_HAVE_MPI
  if (comm.name() != "mpi")
    return Status::Unavailable("the mpi backend needs ranks started by mpirun or srun");
  return make_mpi_collectives(out);
#else
  (void)comm;
  (void)out;
  return Status::Unavailable("built without MPI");
#endif
}

Status make_nccl_backend(Comm& comm, int device, std::unique_ptr<Collectives>* out) {
#ifdef IOFAB_HAVE_NCCL
  return make_nccl_collectives(comm, device, out);
#else
  (void)comm;
  (void)device;
  (void)out;
  return Status::Unavailable("built without NCCL");
#endif
}

}  // namespace

const std::vector<CollectiveBackend>& collective_backends() {
  static const std::vector<CollectiveBackend> rows = {
      {.name = "mpi",
       .shown = "MPI",
       .needs_own_gpu = false,
       .one_rank = false,
       .float8 = false,
       .make = make_mpi_backend},
      {.name = "nccl",
       .shown = "NCCL",
       .needs_own_gpu = true,
       .one_rank = true,
       .float8 = true,
       .make = make_nccl_backend},
  };
  return rows;
}

const CollectiveBackend* find_collective_backend(std::string_view name) {
  for (const CollectiveBackend& b : collective_backends()) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

BackendChoice choose_backend(std::string_view requested, bool have_nccl,
                             const std::vector<std::string>& gpu_status) {
  const CollectiveBackend* asked = find_collective_backend(requested);
  if (asked != nullptr && !asked->needs_own_gpu) {
    return {std::string(asked->name), "requested (backend: " + std::string(asked->name) + ")", ""};
  }
  size_t bad = gpu_status.size();
  for (size_t r = 0; r < gpu_status.size() && bad == gpu_status.size(); ++r) {
    if (!gpu_status[r].empty()) bad = r;
  }
  const bool all_gpus = have_nccl && bad == gpu_status.size();
  std::string why_not;
  if (!have_nccl) {
    why_not = "built without NCCL";
  } else if (!all_gpus) {
    why_not = gpu_status[bad] + (gpu_status.size() > 1 ? " (rank " + std::to_string(bad) + ")" : "");
  }
  if (asked != nullptr) {
    if (!all_gpus) return {"", "", why_not};
    return {std::string(asked->name),
            "requested (backend: " + std::string(asked->name) + "); every rank has a GPU of its own", ""};
  }
  for (const CollectiveBackend& b : collective_backends()) {
    if (b.needs_own_gpu && all_gpus) {
      return {std::string(b.name),
              "auto: " + std::string(b.shown) + " is built and every rank has a GPU of its own", ""};
    }
  }
  for (const CollectiveBackend& b : collective_backends()) {
    if (!b.needs_own_gpu) return {std::string(b.name), "auto: " + why_not, ""};
  }
  return {"", "", why_not};
}

Status make_collectives(std::string_view backend, Comm& comm, int device, std::unique_ptr<Collectives>* out) {
  if (const CollectiveBackend* b = find_collective_backend(backend)) return b->make(comm, device, out);
  std::string known;
  for (const CollectiveBackend& b : collective_backends())
    known += (known.empty() ? "" : " or ") + std::string(b.name);
  return Status::Invalid("unknown collectives backend \"" + std::string(backend) + "\"; expected " + known);
}

}  // namespace iofab
