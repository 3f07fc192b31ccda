// psync: pread/pwrite, done inside queue(), so every I/O answers kCompleted
// (fio's psync). The baseline the other engines are measured against.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "harness/engines/engine.h"

namespace iofab {

namespace {

class PsyncEngine final : public Engine {
 public:
  explicit PsyncEngine(const EngineOptions& opts) : direct_(opts.direct) {}

  std::string_view name() const override { return "psync"; }
  EngineCaps caps() const override {
    return EngineCaps{.sync = true, .needs_aligned_buffers = direct_, .moves_data = true};
  }

  Status add_file(int fd, int* index) override {
    if (fd < 0) return Status::Invalid("psync: add_file: bad fd " + std::to_string(fd));
    for (size_t i = 0; i < fds_.size(); ++i) {
      if (fds_[i] < 0) {
        fds_[i] = fd;
        *index = static_cast<int>(i);
        return Status::Ok();
      }
    }
    fds_.push_back(fd);
    *index = static_cast<int>(fds_.size() - 1);
    return Status::Ok();
  }

  Status remove_file(int index) override {
    if (fd_of(index) < 0) return Status::Invalid("psync: remove_file: no file " + std::to_string(index));
    fds_[static_cast<size_t>(index)] = -1;
    return Status::Ok();
  }

  Status register_buffers(std::span<const iovec>) override { return Status::Ok(); }

  QueueResult queue(const IoRequest& req, IoCompletion* done) override {
    done->tag = req.tag;
    const int fd = fd_of(req.file);
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
    const int fd = fd_of(file);
    if (fd < 0) return Status::Invalid("psync: fsync: no file " + std::to_string(file));
    while (::fsync(fd) != 0) {
      if (errno != EINTR) return Status::FromErrno("fsync", errno);
    }
    return Status::Ok();
  }

 private:
  int fd_of(int index) const {
    if (index < 0 || static_cast<size_t>(index) >= fds_.size()) return -1;
    return fds_[static_cast<size_t>(index)];
  }

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
  std::vector<int> fds_;  // -1: free slot
};

}  // namespace

Status make_psync_engine(const EngineOptions& opts, std::unique_ptr<Engine>* out) {
  *out = std::make_unique<PsyncEngine>(opts);
  return Status::Ok();
}

}  // namespace iofab
