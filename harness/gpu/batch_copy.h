// BatchCopier: the host-to-device leg of a data loader's path. A batch is
// collated into one of a ring of pinned (page-locked) host buffers, then
// copied to device memory with cudaMemcpyAsync on the copier's own stream;
// copy() returns when the batch is on the device, as a training step that
// consumes it would have to wait for.
//
// Built with CUDA (batch_copy_cuda.cc) it uses the CUDA runtime; without
// CUDA (batch_copy.cc) create() answers Unavailable("built without CUDA").
// With CUDA but no usable device it answers Unavailable("no CUDA device: ...").
//
// Thread-safety: host() buffers may be written by any thread (each slot by
// one writer at a time, the caller's job); copy() from one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "harness/core/status.h"

namespace iofab {

class BatchCopier {
 public:
  BatchCopier(const BatchCopier&) = delete;
  BatchCopier& operator=(const BatchCopier&) = delete;
  ~BatchCopier();

  // slots pinned host buffers of slot_bytes each, one device buffer of
  // slot_bytes, one stream, all on CUDA device `device` (taken modulo the
  // device count, so a rank's local index can be passed as is).
  static Status create(size_t slots, size_t slot_bytes, int device, std::unique_ptr<BatchCopier>* out);

  size_t slots() const { return slots_; }
  size_t slot_bytes() const { return slot_bytes_; }
  int device() const { return device_; }
  // The pinned host buffer of slot i.
  void* host(size_t i) const;
  // Copies the first bytes of slot i to the device and waits for the copy.
  Status copy(size_t i, size_t bytes);

 private:
  struct Impl;
  BatchCopier(size_t slots, size_t slot_bytes, int device, std::unique_ptr<Impl> impl);

  size_t slots_;
  size_t slot_bytes_;
  int device_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace iofab
