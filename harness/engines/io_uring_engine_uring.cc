// io_uring: a ring of queue_depth entries per worker (fio's io_uring engine).
// queue() prepares an SQE, commit() submits them in one syscall, reap()
// collects CQEs in batches. Registered (fixed) files spare the kernel an fd
// lookup and reference per I/O, registered (fixed) buffers spare it pinning
// the pages per I/O; both are used when the options and the kernel allow.
#include <liburing.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness/engines/engine.h"
#include "harness/engines/io_uring_engine.h"

namespace iofab {

namespace {

// user_data of the engine's own fsync; every other SQE carries a slot index < queue depth.
constexpr uint64_t kFsyncData = std::numeric_limits<uint64_t>::max();
// CQEs taken per io_uring_peek_batch_cqe call.
constexpr unsigned kPeekBatch = 64;

class IoUringEngine final : public Engine {
 public:
  explicit IoUringEngine(const EngineOptions& opts)
      : depth_(opts.queue_depth),
        direct_(opts.direct),
        use_fixed_buffers_(opts.fixed_buffers),
        tags_(opts.queue_depth) {
    free_slots_.reserve(depth_);
    for (unsigned i = depth_; i > 0; --i) free_slots_.push_back(i - 1);
    stash_.reserve(depth_);
  }

  ~IoUringEngine() override {
    if (!ring_ready_) return;
    // Ring teardown is deferred in the kernel, and a fixed file table keeps its files open
    // until then: unregistering first releases them now, so a deleted file's space is free
    // when the next phase starts.
    if (fixed_files_) io_uring_unregister_files(&ring_);
    io_uring_queue_exit(&ring_);
  }

  // The ring is set up in place: liburing's io_uring is not meant to be copied.
  Status init(const EngineOptions& opts) {
    // COOP_TASKRUN (Linux 5.19): completions are run when this thread enters the
    // kernel anyway, instead of interrupting it; one thread owns each ring, so
    // nothing waits on them longer. Older kernels refuse the flag: plain ring then.
    int rc = io_uring_queue_init(depth_, &ring_, IORING_SETUP_COOP_TASKRUN);
    if (rc == -EINVAL) rc = io_uring_queue_init(depth_, &ring_, 0);
    if (rc < 0) {
      return Status::FromErrno("io_uring_queue_init(queue_depth=" + std::to_string(depth_) + ")", -rc);
    }
    ring_ready_ = true;
    if (opts.fixed_files && opts.max_files > 0) register_file_table(opts.max_files);
    return Status::Ok();
  }

  std::string_view name() const override { return "io_uring"; }
  EngineCaps caps() const override {
    return EngineCaps{.sync = false, .needs_aligned_buffers = direct_, .moves_data = true};
  }

  Status add_file(int fd, int* index) override {
    if (fd < 0) return Status::Invalid("io_uring: add_file: bad fd " + std::to_string(fd));
    if (!fixed_files_) {
      *index = take_file_slot(fd);
      return Status::Ok();
    }
    auto it = std::find(fds_.begin(), fds_.end(), -1);
    if (it == fds_.end()) {
      return Status::Invalid(
          "io_uring: the fixed file table is full (max_files=" + std::to_string(fds_.size()) + ")");
    }
    const auto slot = static_cast<unsigned>(it - fds_.begin());
    const int rc = io_uring_register_files_update(&ring_, slot, &fd, 1);
    if (rc < 0) return Status::FromErrno("io_uring_register_files_update", -rc);
    *it = fd;
    *index = static_cast<int>(slot);
    return Status::Ok();
  }

  Status remove_file(int index) override {
    if (fd_of(index) < 0) return Status::Invalid("io_uring: remove_file: no file " + std::to_string(index));
    if (fixed_files_) {
      int none = -1;
      const int rc = io_uring_register_files_update(&ring_, static_cast<unsigned>(index), &none, 1);
      if (rc < 0) return Status::FromErrno("io_uring_register_files_update", -rc);
    }
    fds_[static_cast<size_t>(index)] = -1;
    return Status::Ok();
  }

  // On failure (often RLIMIT_MEMLOCK on kernels that charge registered pages
  // to it) the engine stays usable and serves buf_index requests with plain
  // reads and writes; the caller decides whether that is worth a warning.
  Status register_buffers(std::span<const iovec> bufs) override {
    if (!use_fixed_buffers_) return Status::Ok();
    if (in_flight_ > 0) return Status::Invalid("io_uring: register_buffers with I/O in flight");
    if (buffers_registered_) {
      buffers_registered_ = false;
      const int rc = io_uring_unregister_buffers(&ring_);
      if (rc < 0) return Status::FromErrno("io_uring_unregister_buffers", -rc);
    }
    if (bufs.empty()) return Status::Ok();
    const int rc = io_uring_register_buffers(&ring_, bufs.data(), static_cast<unsigned>(bufs.size()));
    if (rc < 0) return Status::FromErrno("io_uring_register_buffers", -rc);
    buffers_registered_ = true;
    return Status::Ok();
  }

  QueueResult queue(const IoRequest& req, IoCompletion* done) override {
    if (in_flight_ >= depth_) return QueueResult::kBusy;
    const int fd = fd_of(req.file);
    if (fd < 0) {
      *done = IoCompletion{req.tag, -EBADF};
      return QueueResult::kCompleted;
    }
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) return QueueResult::kBusy;
    const int target = fixed_files_ ? req.file : fd;
    if (buffers_registered_ && req.buf_index >= 0) {
      if (req.op == IoOp::kRead) {
        io_uring_prep_read_fixed(sqe, target, req.buf, req.len, req.offset, req.buf_index);
      } else {
        io_uring_prep_write_fixed(sqe, target, req.buf, req.len, req.offset, req.buf_index);
      }
    } else if (req.op == IoOp::kRead) {
      io_uring_prep_read(sqe, target, req.buf, req.len, req.offset);
    } else {
      io_uring_prep_write(sqe, target, req.buf, req.len, req.offset);
    }
    if (fixed_files_) sqe->flags |= IOSQE_FIXED_FILE;
    const unsigned slot = free_slots_.back();
    free_slots_.pop_back();
    tags_[slot] = req.tag;
    io_uring_sqe_set_data64(sqe, slot);
    ++in_flight_;
    return QueueResult::kQueued;
  }

  Status commit() override {
    while (io_uring_sq_ready(&ring_) > 0) {
      const int rc = io_uring_submit(&ring_);
      if (rc > 0 || rc == -EINTR) continue;
      // The kernel takes no more for now (out of resources): what is left
      // stays in the SQ, and the next reap() submits it while it waits.
      if (rc == 0 || rc == -EAGAIN || rc == -EBUSY) return Status::Ok();
      return Status::FromErrno("io_uring_submit", -rc);
    }
    return Status::Ok();
  }

  // Waiting for more than is in flight would never return, so min_complete
  // is capped at in_flight(). SQEs still staged are submitted here too.
  Status reap(unsigned min_complete, std::span<IoCompletion> out, unsigned* n) override {
    const unsigned want = std::min(min_complete, in_flight_);
    unsigned got = 0;
    while (got < out.size() && stash_head_ < stash_.size()) {
      out[got++] = stash_[stash_head_++];
      --in_flight_;
    }
    if (stash_head_ == stash_.size()) {
      stash_.clear();
      stash_head_ = 0;
    }
    for (;;) {
      got += drain(out.subspan(got));
      if (got >= want || got == out.size()) break;
      const unsigned need = want - got;
      int rc;
      if (io_uring_sq_ready(&ring_) > 0) {
        rc = io_uring_submit_and_wait(&ring_, need);
      } else {
        io_uring_cqe* cqe = nullptr;
        rc = io_uring_wait_cqe_nr(&ring_, &cqe, need);
      }
      if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
        *n = got;
        return Status::FromErrno("io_uring_enter (reap)", -rc);
      }
    }
    *n = got;
    return io_uring_sq_ready(&ring_) > 0 ? commit() : Status::Ok();
  }

  unsigned in_flight() const override { return in_flight_; }

  // IORING_OP_FSYNC on the ring with IOSQE_IO_DRAIN: it starts only after
  // every I/O submitted before it has completed, so it covers the engine's
  // writes still in flight. Their completions, met while waiting, are kept
  // for the next reap().
  Status fsync(int file) override {
    const int fd = fd_of(file);
    if (fd < 0) return Status::Invalid("io_uring: fsync: no file " + std::to_string(file));
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) {
      if (Status st = commit(); !st.ok()) return st;
      sqe = io_uring_get_sqe(&ring_);
      if (sqe == nullptr) return Status::Internal("io_uring: fsync: submission queue stays full");
    }
    io_uring_prep_fsync(sqe, fixed_files_ ? file : fd, 0);
    sqe->flags |= IOSQE_IO_DRAIN;
    if (fixed_files_) sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data64(sqe, kFsyncData);
    fsync_done_ = false;
    while (!fsync_done_) {
      io_uring_cqe* cqe = nullptr;
      const int rc = io_uring_sq_ready(&ring_) > 0 ? io_uring_submit_and_wait(&ring_, 1)
                                                   : io_uring_wait_cqe(&ring_, &cqe);
      if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
        return Status::FromErrno("io_uring_enter (fsync)", -rc);
      }
      stash_all();
    }
    if (fsync_result_ < 0) return Status::FromErrno("fsync", -fsync_result_);
    return Status::Ok();
  }

 private:
  void register_file_table(unsigned max_files) {
    int rc = io_uring_register_files_sparse(&ring_, max_files);
    if (rc < 0) {
      // Kernels before 5.19 lack the sparse flag but take a table of -1s.
      std::vector<int> empty(max_files, -1);
      rc = io_uring_register_files(&ring_, empty.data(), max_files);
    }
    // Without a table the engine still works, with plain fds.
    fixed_files_ = rc >= 0;
    if (fixed_files_) fds_.assign(max_files, -1);
  }

  int take_file_slot(int fd) {
    auto it = std::find(fds_.begin(), fds_.end(), -1);
    if (it != fds_.end()) {
      *it = fd;
      return static_cast<int>(it - fds_.begin());
    }
    fds_.push_back(fd);
    return static_cast<int>(fds_.size() - 1);
  }

  int fd_of(int index) const {
    if (index < 0 || static_cast<size_t>(index) >= fds_.size()) return -1;
    return fds_[static_cast<size_t>(index)];
  }

  // Takes CQEs already posted, up to out.size() of the caller's; the engine's
  // fsync completion is recorded, not returned.
  unsigned drain(std::span<IoCompletion> out) {
    unsigned got = 0;
    io_uring_cqe* cqes[kPeekBatch];
    while (got < out.size()) {
      const auto max = static_cast<unsigned>(std::min<size_t>(out.size() - got, kPeekBatch));
      const unsigned k = io_uring_peek_batch_cqe(&ring_, cqes, max);
      for (unsigned i = 0; i < k; ++i) {
        const uint64_t data = io_uring_cqe_get_data64(cqes[i]);
        if (data == kFsyncData) {
          note_fsync(cqes[i]->res);
          continue;
        }
        out[got++] = complete(data, cqes[i]->res);
        --in_flight_;
      }
      io_uring_cq_advance(&ring_, k);
      if (k < max) break;
    }
    return got;
  }

  // Moves every posted CQE to the stash (in_flight_ still counts them until reaped).
  void stash_all() {
    io_uring_cqe* cqes[kPeekBatch];
    unsigned k;
    while ((k = io_uring_peek_batch_cqe(&ring_, cqes, kPeekBatch)) > 0) {
      for (unsigned i = 0; i < k; ++i) {
        const uint64_t data = io_uring_cqe_get_data64(cqes[i]);
        if (data == kFsyncData) {
          note_fsync(cqes[i]->res);
        } else {
          stash_.push_back(complete(data, cqes[i]->res));
        }
      }
      io_uring_cq_advance(&ring_, k);
    }
  }

  IoCompletion complete(uint64_t slot, int res) {
    free_slots_.push_back(static_cast<unsigned>(slot));
    return IoCompletion{tags_[slot], res};
  }

  void note_fsync(int res) {
    fsync_done_ = true;
    fsync_result_ = res;
  }

  io_uring ring_{};
  bool ring_ready_ = false;
  const unsigned depth_;
  const bool direct_;
  const bool use_fixed_buffers_;
  bool fixed_files_ = false;
  bool buffers_registered_ = false;
  std::vector<int> fds_;        // file index -> fd, -1 when free
  std::vector<uint64_t> tags_;  // slot (user_data) -> caller's tag
  std::vector<unsigned> free_slots_;
  std::vector<IoCompletion> stash_;  // completions met while fsync waited
  size_t stash_head_ = 0;
  unsigned in_flight_ = 0;
  bool fsync_done_ = false;
  int fsync_result_ = 0;
};

}  // namespace

bool io_uring_usable(std::string* reason) {
  io_uring ring;
  const int rc = io_uring_queue_init(2, &ring, 0);
  if (rc < 0) {
    *reason = Status::FromErrno("io_uring_setup", -rc).message();
    return false;
  }
  // The engine needs the non-vectored read/write opcodes (Linux 5.6) and the
  // probe interface that arrived with them.
  bool ok = false;
  if (io_uring_probe* probe = io_uring_get_probe_ring(&ring)) {
    ok = io_uring_opcode_supported(probe, IORING_OP_READ) &&
         io_uring_opcode_supported(probe, IORING_OP_WRITE) &&
         io_uring_opcode_supported(probe, IORING_OP_READ_FIXED) &&
         io_uring_opcode_supported(probe, IORING_OP_FSYNC);
    io_uring_free_probe(probe);
  }
  io_uring_queue_exit(&ring);
  if (!ok) *reason = "io_uring: kernel lacks IORING_OP_READ/WRITE (needs Linux >= 5.6)";
  return ok;
}

Status make_io_uring_engine(const EngineOptions& opts, std::unique_ptr<Engine>* out) {
  if (opts.queue_depth == 0) return Status::Invalid("io_uring: queue_depth must be >= 1");
  auto engine = std::make_unique<IoUringEngine>(opts);
  if (Status st = engine->init(opts); !st.ok()) return st;
  *out = std::move(engine);
  return Status::Ok();
}

}  // namespace iofab
