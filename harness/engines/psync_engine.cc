// psync: pread/pwrite, done inside queue(), so every I/O answers kCompleted
// (fio's psync). The baseline the other engines are measured against.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "harness/engines/engine.h"
#include "harness/engines/file_slots.h"

namespace iofab {

namespace {

class PsyncEngine final : public Engine {
 public:
  explicit PsyncEngine(const EngineOptions& opts) : direct_(opts.direct) {}

  std::string_view name() const override { return "psync"; }
  EngineCaps caps() const override {
    return EngineCaps{.sync = true, .needs_aligned_buffers = direct_, .moves_data = true};
  }

  Status add_file(int fd, int* index) override { return files_.add(fd, index); }

  Status remove_file(int index) override { return files_.remove(index); }

  Status register_buffers(std::span<const iovec>) override { return Status::Ok(); }

  QueueResult queue(const IoRequest& req, IoCompletion* done) override {
    done->tag = req.tag;
    const int fd = files_.fd(req.file);
    done->result = fd < 0 ? -EBADF : transfer(fd, req);
    return QueueResult::kCompleted;
  }

  Status commit() override { return Status::Ok(); }

  Status reap(unsigned, std::span<IoCompletion>, unsigned* n) override {
    *n = 0;  // nothing is ever in flight
    return Status::Ok();
  }

  unsigned in_flight() const override { return 0; }

  Status fsync(int file) override {
    const int fd = files_.fd(file);
    if (fd < 0) return Status::Invalid("psync: fsync: no file " + std::to_string(file));
    while (::fsync(fd) != 0) {
      if (errno != EINTR) return Status::FromErrno("fsync", errno);
    }
    return Status::Ok();
  }

 private:
  // Moves all of req.len unless EOF comes first (then the short count) or an
  // error does (then -errno, even after partial progress: the caller fails the
  // I/O either way, and the errno is what it must report).
  static int64_t transfer(int fd, const IoRequest& req) {
    auto* p = static_cast<char*>(req.buf);
    size_t done = 0;
    while (done < req.len) {
      const auto off = static_cast<off_t>(req.offset + done);
      const ssize_t r = req.op == IoOp::kRead ? ::pread(fd, p + done, req.len - done, off)
                                              : ::pwrite(fd, p + done, req.len - done, off);
      if (r < 0) {
        if (errno == EINTR) continue;
        return -static_cast<int64_t>(errno);
      }
      if (r == 0) break;  // EOF (or a write that cannot progress): report the short count
      done += static_cast<size_t>(r);
    }
    return static_cast<int64_t>(done);
  }

  bool direct_;
  FileSlots files_{"psync"};
};

}  // namespace

Status make_psync_engine(const EngineOptions& opts, std::unique_ptr<Engine>* out) {
  *out = std::make_unique<PsyncEngine>(opts);
  return Status::Ok();
}

}  // namespace iofab
