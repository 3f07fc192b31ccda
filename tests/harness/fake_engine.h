// An in-memory Engine for tests: async with a queue depth, backed by one
// byte vector per file, with faults on request: short transfers, an errno
// on the Nth I/O, kBusy answers. It is how the harness is tested apart from
// any disk, and how failed completions are injected on the async path.
#pragma once

#include <cerrno>
#include <cstring>
#include <deque>
#include <vector>

#include "harness/engines/engine.h"

namespace iofab::testing {

class FakeEngine final : public Engine {
 public:
  struct Faults {
    bool short_transfers = false;  // every I/O first moves half its bytes
    long fail_at = -1;             // the Nth queued I/O (0-based) completes with -error
    int error = EIO;
    unsigned busy_every = 0;       // every Nth queue() answers kBusy once
    bool at_once = false;          // every I/O completes inside queue() (as the s3 engine's writes)
  };

  FakeEngine(unsigned depth, Faults faults) : depth_(depth), faults_(faults) {}

  std::string_view name() const override { return "fake"; }
  EngineCaps caps() const override { return {false, false, true}; }
  Status add_file(int, int* index) override {
    files_.emplace_back();
    *index = static_cast<int>(files_.size() - 1);
    return Status::Ok();
  }
  Status remove_file(int) override { return Status::Ok(); }
  Status register_buffers(std::span<const iovec>) override { return Status::Ok(); }

  QueueResult queue(const IoRequest& req, IoCompletion* done) override {
    if (pending_.size() + submitted_.size() >= depth_) return QueueResult::kBusy;
    if (faults_.busy_every != 0 && ++calls_ % faults_.busy_every == 0) return QueueResult::kBusy;
    IoCompletion c{req.tag, 0};
    if (static_cast<long>(queued_++) == faults_.fail_at) {
      c.result = -faults_.error;
    } else {
      uint32_t len = req.len;
      if (faults_.short_transfers && len > 1 && short_done_.size() <= req.tag) short_done_.resize(req.tag + 1, 0);
      if (faults_.short_transfers && len > 1 && !short_done_[req.tag]) {
        len /= 2;
        short_done_[req.tag] = 1;
      } else if (faults_.short_transfers && short_done_.size() > req.tag) {
        short_done_[req.tag] = 0;
      }
      auto& f = files_[static_cast<size_t>(req.file)];
      if (req.op == IoOp::kWrite) {
        if (f.size() < req.offset + len) f.resize(req.offset + len);
        std::memcpy(f.data() + req.offset, req.buf, len);
      } else {
        len = req.offset >= f.size() ? 0 : static_cast<uint32_t>(std::min<uint64_t>(len, f.size() - req.offset));
        std::memcpy(req.buf, f.data() + req.offset, len);
      }
      c.result = len;
    }
    if (faults_.at_once) {
      *done = c;
      return QueueResult::kCompleted;
    }
    pending_.push_back(c);
    return QueueResult::kQueued;
  }
  Status commit() override {
    for (auto& c : pending_) submitted_.push_back(c);
    pending_.clear();
    return Status::Ok();
  }
  Status reap(unsigned, std::span<IoCompletion> out, unsigned* n) override {
    *n = 0;
    while (!submitted_.empty() && *n < out.size()) {
      out[(*n)++] = submitted_.front();
      submitted_.pop_front();
    }
    return Status::Ok();
  }
  unsigned in_flight() const override { return static_cast<unsigned>(pending_.size() + submitted_.size()); }
  Status fsync(int) override { return Status::Ok(); }

  const std::vector<char>& file(int i) const { return files_[static_cast<size_t>(i)]; }
  // I/O committed to the "device" and not yet reaped.
  unsigned submitted() const { return static_cast<unsigned>(submitted_.size()); }
  unsigned max_seen_in_flight = 0;

 private:
  unsigned depth_;
  Faults faults_;
  unsigned long queued_ = 0;
  unsigned long calls_ = 0;
  std::vector<char> short_done_;
  std::vector<std::vector<char>> files_;
  std::vector<IoCompletion> pending_;
  std::deque<IoCompletion> submitted_;
};

}  // namespace iofab::testing
