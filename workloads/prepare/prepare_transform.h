// The CPU work the prepare phase does on every sample, between reading the
// raw file and writing the processed shard: zstd compression (libzstd, the
// cost set by `level`, as a real pipeline pays it), or a busy loop that
// spends a set CPU time per MiB (`cpu_per_mib`), for a transform of a known
// cost (decoding, tokenising, resizing) without its library.
//
// Thread-safety: one SampleTransform per transformer thread (zstd keeps its
// compression context in it); distinct objects are independent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "harness/core/status.h"

namespace iofab {

enum class TransformKind { kZstd, kBusy };

struct TransformSpec {
  TransformKind kind = TransformKind::kZstd;
  int level = 3;           // zstd
  double cpu_per_mib = 0;  // busy: CPU seconds per MiB of input
};

const char* transform_name(TransformKind k);

class SampleTransform {
 public:
  SampleTransform() = default;
  SampleTransform(const SampleTransform&) = delete;
  SampleTransform& operator=(const SampleTransform&) = delete;
  virtual ~SampleTransform() = default;

  static Status create(const TransformSpec& spec, std::unique_ptr<SampleTransform>* out);

  // The most bytes apply() writes for n input bytes.
  virtual size_t max_output(size_t n) const = 0;
  // Transforms in[0, n) into out (room for cap >= max_output(n) bytes); *out_len gets the bytes written.
  virtual Status apply(const unsigned char* in, size_t n, unsigned char* out, size_t cap,
                       size_t* out_len) = 0;
  // The output member's extension in a shard ("zst", "bin").
  virtual const char* extension() const = 0;
};

// CPU time of the calling thread, in ns (CLOCK_THREAD_CPUTIME_ID: user and system).
uint64_t thread_cpu_ns();

}  // namespace iofab
