#include "workloads/prepare/prepare_transform.h"

#include <time.h>
#include <zstd.h>

#include <cmath>
#include <cstring>
#include <string>

#include "harness/core/mix.h"

namespace iofab {
namespace {

class ZstdTransform final : public SampleTransform {
 public:
  explicit ZstdTransform(int level) : level_(level), cctx_(ZSTD_createCCtx()) {}
  ~ZstdTransform() override { ZSTD_freeCCtx(cctx_); }

  bool ok() const { return cctx_ != nullptr; }
  size_t max_output(size_t n) const override { return ZSTD_compressBound(n); }
  Status apply(const unsigned char* in, size_t n, unsigned char* out, size_t cap, size_t* out_len) override {
    // One frame per sample, as a per-sample record is stored (each decompresses on its own).
    const size_t r = ZSTD_compressCCtx(cctx_, out, cap, in, n, level_);
    if (ZSTD_isError(r)) return Status::Internal(std::string("zstd compress: ") + ZSTD_getErrorName(r));
    *out_len = r;
    return Status::Ok();
  }
  const char* extension() const override { return "zst"; }

 private:
  int level_;
  ZSTD_CCtx* cctx_;
};

// Spends cpu_per_mib x n / MiB seconds of this thread's CPU time on the sample's bytes, read by the CPU
// clock itself (so the cost is CPU seconds, whatever else the machine runs), and passes the bytes on.
class BusyTransform final : public SampleTransform {
 public:
  explicit BusyTransform(double cpu_per_mib) : cpu_per_mib_(cpu_per_mib) {}

  size_t max_output(size_t n) const override { return n; }
  Status apply(const unsigned char* in, size_t n, unsigned char* out, size_t cap, size_t* out_len) override {
    if (cap < n) return Status::Internal("busy transform: output buffer too small");
    const uint64_t start = thread_cpu_ns();
    const auto target =
        static_cast<uint64_t>(std::llround(cpu_per_mib_ * static_cast<double>(n) / 1048576.0 * 1e9));
    std::memcpy(out, in, n);
    uint64_t acc = sink_;
    size_t pos = 0;
    while (thread_cpu_ns() - start < target) {
      // About 16 KiB of mixing between looks at the clock: a look costs far less than a pass.
      for (unsigned i = 0; i < 2048; ++i) {
        uint64_t word = 0;
        if (n >= sizeof word) {
          if (pos + sizeof word > n) pos = 0;
          std::memcpy(&word, in + pos, sizeof word);
          pos += sizeof word;
        }
        acc = fmix64(acc ^ word);
      }
    }
    sink_ = acc;  // kept, so the loop is never optimised away
    *out_len = n;
    return Status::Ok();
  }
  const char* extension() const override { return "bin"; }

 private:
  double cpu_per_mib_;
  uint64_t sink_ = 0;
};

}  // namespace

const char* transform_name(TransformKind k) { return k == TransformKind::kZstd ? "zstd" : "busy"; }

uint64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

Status SampleTransform::create(const TransformSpec& spec, std::unique_ptr<SampleTransform>* out) {
  if (spec.kind == TransformKind::kBusy) {
    *out = std::make_unique<BusyTransform>(spec.cpu_per_mib);
    return Status::Ok();
  }
  auto z = std::make_unique<ZstdTransform>(spec.level);
  if (!z->ok()) return Status::Internal("zstd: cannot create a compression context (out of memory)");
  *out = std::move(z);
  return Status::Ok();
}

}  // namespace iofab
