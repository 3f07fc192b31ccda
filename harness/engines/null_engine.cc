// null: moves no data, but behaves as an asynchronous engine with a queue
// depth (fio's null engine), so the harness's async path -- kQueued, kBusy,
// commit, reap -- can be tested and timed apart from any storage.
#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "harness/engines/engine.h"
#include "harness/engines/file_slots.h"

namespace iofab {

namespace {

class NullEngine final : public Engine {
 public:
  explicit NullEngine(const EngineOptions& opts)
      : depth_(opts.queue_depth == 0 ? 1 : opts.queue_depth), ring_(depth_) {}

  std::string_view name() const override { return "null"; }
  EngineCaps caps() const override {
    return EngineCaps{.sync = false, .needs_aligned_buffers = false, .moves_data = false};
  }

  Status add_file(int fd, int* index) override { return files_.add(fd, index); }

  Status remove_file(int index) override { return files_.remove(index); }

  Status register_buffers(std::span<const iovec>) override { return Status::Ok(); }

  QueueResult queue(const IoRequest& req, IoCompletion* done) override {
    if (!valid_file(req.file)) {
      // Answered at once, as a real async engine does with a request it can
      // reject before submission; it takes no queue slot.
      *done = IoCompletion{req.tag, -EBADF};
      return QueueResult::kCompleted;
    }
    if (count_ == depth_) return QueueResult::kBusy;
    ring_[(head_ + count_) % depth_] = IoCompletion{req.tag, static_cast<int64_t>(req.len)};
    ++count_;
    return QueueResult::kQueued;
  }

  Status commit() override { return Status::Ok(); }

  Status reap(unsigned min_complete, std::span<IoCompletion> out, unsigned* n) override {
    // Every queued I/O is complete at once, and reaping submits what is still
    // staged (as io_uring_submit_and_wait does), so min_complete never waits.
    (void)min_complete;
    unsigned got = 0;
    while (got < out.size() && count_ > 0) {
      out[got++] = ring_[head_];
      head_ = (head_ + 1) % depth_;
      --count_;
    }
    *n = got;
    return Status::Ok();
  }

  unsigned in_flight() const override { return count_; }

  Status fsync(int file) override {
    if (!valid_file(file)) return Status::Invalid("null: fsync: no file " + std::to_string(file));
    return Status::Ok();
  }

 private:
  bool valid_file(int index) const { return files_.fd(index) >= 0; }

  const unsigned depth_;
  std::vector<IoCompletion> ring_;  // completions in queue order, a ring of depth_
  unsigned head_ = 0;
  unsigned count_ = 0;    // queued and not yet reaped
  FileSlots files_{"null"};
};

}  // namespace

Status make_null_engine(const EngineOptions& opts, std::unique_ptr<Engine>* out) {
  *out = std::make_unique<NullEngine>(opts);
  return Status::Ok();
}

}  // namespace iofab
