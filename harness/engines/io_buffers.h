// IoBuffers: a set of equal, page-aligned I/O buffers (valid for O_DIRECT and
// io_uring fixed buffers), owned together and freed together.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <span>
#include <vector>

#include "harness/core/status.h"

namespace iofab {

class IoBuffers {
 public:
  static constexpr size_t kAlignment = 4096;

  IoBuffers() = default;
  IoBuffers(IoBuffers&& other) noexcept;
  IoBuffers& operator=(IoBuffers&& other) noexcept;
  IoBuffers(const IoBuffers&) = delete;
  IoBuffers& operator=(const IoBuffers&) = delete;
  ~IoBuffers();

  // count buffers of size bytes each (size rounded up to kAlignment).
  static Status allocate(size_t count, size_t size, IoBuffers* out);

  size_t count() const { return iovecs_.size(); }
  size_t size() const { return size_; }
  void* at(size_t i) const { return iovecs_[i].iov_base; }
  std::span<const iovec> iovecs() const { return iovecs_; }

 private:
  void* base_ = nullptr;
  size_t mapped_ = 0;
  size_t size_ = 0;
  std::vector<iovec> iovecs_;
};

}  // namespace iofab
