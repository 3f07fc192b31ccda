// mmap: reads are page faults on a shared read-only mapping of the file, copied into the caller's
// buffer, the way safetensors' safe_open and torch.load(mmap=True) touch a model's weights: no read(2),
// the kernel's fault path and its readahead (steered by the madvise hint, EngineOptions::map_advice)
// bring the pages in. Writes are pwrite(2) (a loader never writes through its mapping; the conformance
// suite and a phase's setup still need them), so every queue() completes at once, as psync's do.
//
// Each file is mapped at its first read, whole, at its size then; a read past the mapping's end looks at
// the size again and maps the file anew when it grew (data written after the first read). Reads stop at
// the file's end (a short count), as pread's do. O_DIRECT cannot apply (faults always go through the page
// cache): the factory refuses it, and the suite reader refuses `direct: true` with this engine before.
//
// What a mapping cannot do: an I/O error under a fault, or a file truncated by another process below a
// mapped range, is SIGBUS, not an errno (as for every mmap loader). iofab's phases never truncate a file
// they read.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "harness/engines/engine.h"

namespace iofab {

namespace {

constexpr std::array<std::string_view, 5> kAdviceNames = {"none", "sequential", "random", "willneed",
                                                          "hugepage"};

int advice_flag(MapAdvice advice) {
  switch (advice) {
    case MapAdvice::kSequential:
      return MADV_SEQUENTIAL;
    case MapAdvice::kRandom:
      return MADV_RANDOM;
    case MapAdvice::kWillNeed:
      return MADV_WILLNEED;
    case MapAdvice::kHugePage:
      return MADV_HUGEPAGE;
    case MapAdvice::kNone:
      break;
  }
  return MADV_NORMAL;
}

class MmapEngine final : public Engine {
 public:
  explicit MmapEngine(MapAdvice advice) : advice_(advice) {}
  ~MmapEngine() override {
    for (Mapping& m : files_) unmap(&m);
  }

  std::string_view name() const override { return "mmap"; }
  EngineCaps caps() const override {
    return EngineCaps{.sync = true, .needs_aligned_buffers = false, .moves_data = true};
  }

  Status add_file(int fd, int* index) override {
    if (fd < 0) return Status::Invalid("mmap: add_file: bad fd " + std::to_string(fd));
    for (size_t i = 0; i < files_.size(); ++i) {
      if (files_[i].fd < 0) {
        files_[i] = Mapping{fd};
        *index = static_cast<int>(i);
        return Status::Ok();
      }
    }
    files_.push_back(Mapping{fd});
    *index = static_cast<int>(files_.size() - 1);
    return Status::Ok();
  }

  Status remove_file(int index) override {
    Mapping* m = slot(index);
    if (m == nullptr) return Status::Invalid("mmap: remove_file: no file " + std::to_string(index));
    unmap(m);  // its pages may go from the page cache again (a mapped page cannot be dropped)
    m->fd = -1;
    return Status::Ok();
  }

  Status register_buffers(std::span<const iovec>) override { return Status::Ok(); }

  QueueResult queue(const IoRequest& req, IoCompletion* done) override {
    done->tag = req.tag;
    Mapping* m = slot(req.file);
    if (m == nullptr) {
      done->result = -EBADF;
    } else {
      done->result = req.op == IoOp::kRead ? read(m, req) : write(m->fd, req);
    }
    return QueueResult::kCompleted;
  }

  Status commit() override { return Status::Ok(); }

  Status reap(unsigned, std::span<IoCompletion>, unsigned* n) override {
    *n = 0;  // nothing is ever in flight
    return Status::Ok();
  }

  unsigned in_flight() const override { return 0; }

  Status fsync(int file) override {
    Mapping* m = slot(file);
    if (m == nullptr) return Status::Invalid("mmap: fsync: no file " + std::to_string(file));
    while (::fsync(m->fd) != 0) {
      if (errno != EINTR) return Status::FromErrno("fsync", errno);
    }
    return Status::Ok();
  }

 private:
  struct Mapping {
    int fd = -1;
    const unsigned char* base = nullptr;  // null: not mapped (yet, or an empty file)
    uint64_t length = 0;                  // bytes mapped: the file's size when it was mapped
  };

  Mapping* slot(int index) {
    if (index < 0 || static_cast<size_t>(index) >= files_.size() ||
        files_[static_cast<size_t>(index)].fd < 0) {
      return nullptr;
    }
    return &files_[static_cast<size_t>(index)];
  }

  static void unmap(Mapping* m) {
    if (m->base != nullptr) munmap(const_cast<unsigned char*>(m->base), m->length);
    m->base = nullptr;
    m->length = 0;
  }

  // Maps the whole file anew when it is larger than the mapping; 0 or -errno.
  int64_t remap_if_grown(Mapping* m) const {
    struct stat st;
    if (::fstat(m->fd, &st) != 0) return -static_cast<int64_t>(errno);
    const auto size = static_cast<uint64_t>(st.st_size);
    if (size <= m->length) return 0;
    unmap(m);
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, m->fd, 0);
    if (p == MAP_FAILED) return -static_cast<int64_t>(errno);
    if (advice_ != MapAdvice::kNone && ::madvise(p, size, advice_flag(advice_)) != 0) {
      const int err = errno;
      munmap(p, size);
      return -static_cast<int64_t>(err);
    }
    m->base = static_cast<const unsigned char*>(p);
    m->length = size;
    return 0;
  }

  // The page faults: bytes [offset, offset + len) of the mapping, cut at the file's end.
  int64_t read(Mapping* m, const IoRequest& req) const {
    if (req.offset + req.len > m->length) {
      if (const int64_t err = remap_if_grown(m); err < 0) return err;
    }
    if (req.offset >= m->length) return 0;  // at or past the end
    const uint64_t n = std::min<uint64_t>(req.len, m->length - req.offset);
    std::memcpy(req.buf, m->base + req.offset, n);
    return static_cast<int64_t>(n);
  }

  // All of req.len, unless the file cannot take more (the short count) or an error comes (-errno).
  static int64_t write(int fd, const IoRequest& req) {
    const auto* p = static_cast<const char*>(req.buf);
    size_t done = 0;
    while (done < req.len) {
      const ssize_t r = ::pwrite(fd, p + done, req.len - done, static_cast<off_t>(req.offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        return -static_cast<int64_t>(errno);
      }
      if (r == 0) break;
      done += static_cast<size_t>(r);
    }
    return static_cast<int64_t>(done);
  }

  MapAdvice advice_;
  std::vector<Mapping> files_;  // fd -1: a free slot, reused first
};

}  // namespace

std::span<const std::string_view> map_advice_names() { return kAdviceNames; }

std::string_view map_advice_name(MapAdvice advice) { return kAdviceNames[static_cast<size_t>(advice)]; }

bool parse_map_advice(std::string_view name, MapAdvice* out) {
  for (size_t i = 0; i < kAdviceNames.size(); ++i) {
    if (name == kAdviceNames[i]) {
      if (out != nullptr) *out = static_cast<MapAdvice>(i);
      return true;
    }
  }
  return false;
}

Status make_mmap_engine(const EngineOptions& opts, std::unique_ptr<Engine>* out) {
  if (opts.direct) {
    return Status::Invalid(
        "engine mmap: direct: true cannot apply: a mapping's page faults always go through the page cache, "
        "which O_DIRECT bypasses; set direct: false, or use engine psync or io_uring");
  }
  if (opts.map_advice == MapAdvice::kHugePage) {
    // Asked once of a small anonymous mapping, so a kernel without transparent huge pages says so here,
    // not as EINVAL on the first read.
    const size_t len = 2u << 20;
    void* p = ::mmap(nullptr, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return Status::FromErrno("mmap: probing madvise hugepage", errno);
    const int rc = ::madvise(p, len, MADV_HUGEPAGE);
    const int err = errno;
    munmap(p, len);
    if (rc != 0) {
      return Status::Unavailable("engine mmap: madvise: hugepage: this kernel refuses MADV_HUGEPAGE (" +
                                 std::string(std::strerror(err)) +
                                 "): transparent huge pages are not built or are disabled");
    }
  }
  *out = std::make_unique<MmapEngine>(opts.map_advice);
  return Status::Ok();
}

}  // namespace iofab
