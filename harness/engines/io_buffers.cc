#include "harness/engines/io_buffers.h"

#include <sys/mman.h>

#include <cerrno>
#include <limits>
#include <string>
#include <utility>

namespace iofab {

IoBuffers::IoBuffers(IoBuffers&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      mapped_(std::exchange(other.mapped_, 0)),
      size_(std::exchange(other.size_, 0)),
      iovecs_(std::move(other.iovecs_)) {
  other.iovecs_.clear();
}

IoBuffers& IoBuffers::operator=(IoBuffers&& other) noexcept {
  if (this != &other) {
    if (base_ != nullptr) munmap(base_, mapped_);
    base_ = std::exchange(other.base_, nullptr);
    mapped_ = std::exchange(other.mapped_, 0);
    size_ = std::exchange(other.size_, 0);
    iovecs_ = std::move(other.iovecs_);
    other.iovecs_.clear();
  }
  return *this;
}

IoBuffers::~IoBuffers() {
  if (base_ != nullptr) munmap(base_, mapped_);
}

Status IoBuffers::allocate(size_t count, size_t size, IoBuffers* out) {
  if (count == 0 || size == 0) {
    return Status::Invalid("IoBuffers: count and size must be > 0 (got " + std::to_string(count) + " x " +
                           std::to_string(size) + " bytes)");
  }
  constexpr size_t kMax = std::numeric_limits<size_t>::max();
  if (size > kMax - (kAlignment - 1)) return Status::Invalid("IoBuffers: buffer size too large");
  const size_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
  if (count > kMax / rounded) return Status::Invalid("IoBuffers: count x size overflows");
  const size_t total = count * rounded;

  // One anonymous mapping: page-aligned by construction (so O_DIRECT and
  // io_uring fixed buffers accept it), and MAP_POPULATE faults the pages in
  // now, so the first timed I/O does not pay for page faults.
  void* base =
      mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (base == MAP_FAILED) {
    return Status::FromErrno("mmap of " + std::to_string(total) + " bytes for I/O buffers", errno);
  }

  IoBuffers bufs;
  bufs.base_ = base;
  bufs.mapped_ = total;
  bufs.size_ = rounded;
  bufs.iovecs_.resize(count);
  for (size_t i = 0; i < count; ++i) {
    bufs.iovecs_[i].iov_base = static_cast<char*>(base) + i * rounded;
    bufs.iovecs_[i].iov_len = rounded;
  }
  *out = std::move(bufs);
  return Status::Ok();
}

}  // namespace iofab
