// Without CUDA in the build there is no device to copy batches to.
#include "harness/gpu/batch_copy.h"

#ifndef IOFAB_HAVE_CUDA
namespace iofab {

struct BatchCopier::Impl {};

BatchCopier::BatchCopier(size_t slots, size_t slot_bytes, int device, std::unique_ptr<Impl> impl)
    : slots_(slots), slot_bytes_(slot_bytes), device_(device), impl_(std::move(impl)) {}

BatchCopier::~BatchCopier() = default;

Status BatchCopier::create(size_t, size_t, int, std::unique_ptr<BatchCopier>*) {
  return Status::Unavailable("built without CUDA");
}

void* BatchCopier::host(size_t) const { return nullptr; }

Status BatchCopier::copy(size_t, size_t) { return Status::Unavailable("built without CUDA"); }

}  // namespace iofab
#endif
