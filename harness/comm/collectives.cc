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
      return 4;
    case DType::kFloat16:
      return 2;
    case DType::kBFloat16:
      return 2;
    case DType::kInt32:
      return 4;
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
  }
  return "float32";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType t : {DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kInt32}) {
    if (dtype_name(t) == name) return t;
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

BackendChoice choose_backend(std::string_view requested, bool have_nccl,
                             const std::vector<std::string>& gpu_status) {
  if (requested == "mpi") return {"mpi", "requested (backend: mpi)", ""};
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
  if (requested == "nccl") {
    if (!all_gpus) return {"", "", why_not};
    return {"nccl", "requested (backend: nccl); every rank has a GPU of its own", ""};
  }
  if (all_gpus) return {"nccl", "auto: NCCL is built and every rank has a GPU of its own", ""};
  return {"mpi", "auto: " + why_not, ""};
}

Status make_collectives(std::string_view backend, Comm& comm, int device, std::unique_ptr<Collectives>* out) {
  if (backend == "mpi") {
#ifdef IOFAB_HAVE_MPI
    (void)device;
    if (comm.name() != "mpi")
      return Status::Unavailable("the mpi backend needs ranks started by mpirun or srun");
    return make_mpi_collectives(out);
#else
    (void)comm;
    (void)device;
    (void)out;
    return Status::Unavailable("built without MPI");
#endif
  }
  if (backend == "nccl") {
#ifdef IOFAB_HAVE_NCCL
    return make_nccl_collectives(comm, device, out);
#else
    (void)comm;
    (void)device;
    (void)out;
    return Status::Unavailable("built without NCCL");
#endif
  }
  return Status::Invalid("unknown collectives backend \"" + std::string(backend) +
                         "\"; expected mpi or nccl");
}

}  // namespace iofab
