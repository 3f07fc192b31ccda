#include "harness/engines/io_driver.h"

#include <utility>

#include "harness/stats/live_tally.h"

namespace iofab {

IoDriver::IoDriver(Engine& engine, unsigned slots, std::string zero_bytes, Histogram* latency,
                   TimeSeries* series, uint64_t t0_ns, std::atomic<uint64_t>* progress)
    : engine_(engine),
      zero_bytes_(std::move(zero_bytes)),
      latency_(latency),
      series_(series),
      t0_ns_(t0_ns),
      progress_(progress),
      slots_(slots),
      reaped_(slots) {
  sync_done_.reserve(slots);
}

void IoDriver::restart() {
  error_ = Status::Ok();
  retry_.clear();
  sync_done_.clear();
  active_ = 0;
}

void IoDriver::issue(unsigned slot, const IoRequest& req) {
  Slot& s = slots_[slot];
  s.req = req;
  s.moved = 0;
  s.start_ns = now_ns();
  ++active_;
  if (!queue_rest(slot)) retry_.push_back(slot);
}

bool IoDriver::queue_rest(unsigned slot) {
  const Slot& s = slots_[slot];
  IoRequest req = s.req;
  if (s.moved > 0) {
    req.buf = static_cast<char*>(s.req.buf) + s.moved;
    req.offset += s.moved;
    req.len -= s.moved;
    req.buf_index = -1;  // a fixed buffer must be addressed from its start in some kernels
  }
  IoCompletion c;
  switch (engine_.queue(req, &c)) {
    case QueueResult::kQueued:
      return true;
    case QueueResult::kCompleted:
      c.tag = slot;
      sync_done_.push_back(c);
      return true;
    case QueueResult::kBusy:
      return false;
  }
  return false;
}

void IoDriver::retry_busy() {
  while (!retry_.empty()) {
    const unsigned slot = retry_.front();
    retry_.pop_front();
    if (!queue_rest(slot)) {
      retry_.push_front(slot);  // still busy: reap first, and keep it the oldest
      return;
    }
  }
}

void IoDriver::commit() {
  Status st = engine_.commit();
  if (!st.ok()) fail(std::move(st));
}

void IoDriver::complete_synchronous(std::vector<unsigned>* finished) {
  // complete() may queue a short I/O's rest, which may land here again.
  while (!sync_done_.empty()) {
    const IoCompletion c = sync_done_.back();
    sync_done_.pop_back();
    complete(c, finished);
  }
}

Status IoDriver::reap(std::vector<unsigned>* finished) {
  // Committed even after an error: staged I/O must reach the engine to be drained.
  commit();
  unsigned n = 0;
  Status st = engine_.reap(1, reaped_, &n);
  if (!st.ok()) return st;
  for (unsigned i = 0; i < n; ++i) complete(reaped_[i], finished);
  return Status::Ok();
}

void IoDriver::complete(const IoCompletion& c, std::vector<unsigned>* finished) {
  if (failed()) return;  // draining: the run has failed already
  const auto slot = static_cast<unsigned>(c.tag);
  Slot& s = slots_[slot];
  if (c.result <= 0) {
    // The failed I/O is the rest of the request, past what a short transfer already moved.
    const std::string op = s.req.op == IoOp::kWrite ? "write" : "read";
    const uint64_t offset = s.req.offset + s.moved;
    if (c.result < 0) {
      fail(Status::FromErrno(
          op + " of " + std::to_string(s.req.len - s.moved) + " bytes at offset " + std::to_string(offset),
          static_cast<int>(-c.result)));
    } else {
      fail(Status::IoError(op + " at offset " + std::to_string(offset) + " " + zero_bytes_));
    }
    return;
  }
  s.moved += static_cast<uint32_t>(c.result);
  if (s.moved < s.req.len) {
    if (!queue_rest(slot)) retry_.push_back(slot);
    return;
  }
  --active_;
  const uint64_t end = now_ns();
  if (latency_ != nullptr) latency_->record(end - s.start_ns);
  LiveTally::note(end - s.start_ns);  // a live stream's interval percentiles (--live); off: one load
  if (series_ != nullptr) series_->add(end - t0_ns_, s.req.len);
  if (progress_ != nullptr) progress_->fetch_add(s.req.len, std::memory_order_relaxed);
  stats_.ios++;
  stats_.bytes += s.req.len;
  finished->push_back(slot);
}

void IoDriver::fail(Status st) {
  if (!failed()) error_ = std::move(st);
}

}  // namespace iofab
