// The bounded queue between two stages of the prepare pipeline (readers ->
// transformers -> writers). A producer waits while it holds `capacity`
// items, so a slow stage holds the stages before it and memory stays bounded
// whatever the speeds; the time each side waits is what names the stage that
// bounds the pipeline (prepare_bound.h).
//
// close() says no more items come (the last producer finished): consumers
// drain what is there, then pop answers false. cancel() stops both sides at
// once (an error or Ctrl-C): push and pop answer false, queued items are
// dropped with the queue.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <utility>

#include "harness/engines/io_driver.h"  // now_ns

namespace iofab {

template <class T>
class BoundedQueue {
 public:
  explicit BoundedQueue(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}
  BoundedQueue(const BoundedQueue&) = delete;
  BoundedQueue& operator=(const BoundedQueue&) = delete;

  // Waits for room; false when cancelled (the item is dropped). *waited_ns grows by the call's whole
  // time: on a busy host, taking the lock among many threads costs as much as waiting for room, and
  // either is time the stage did not work.
  bool push(T item, uint64_t* waited_ns) {
    const uint64_t t0 = now_ns();
    std::unique_lock<std::mutex> lock(mu_);
    room_.wait(lock, [&] { return items_.size() < capacity_ || cancelled_; });
    const bool pushed = !cancelled_;
    if (pushed) {
      items_.push_back(std::move(item));
      if (items_.size() > high_water_) high_water_ = items_.size();
      ready_.notify_one();
    }
    lock.unlock();
    *waited_ns += now_ns() - t0;
    return pushed;
  }

  // Waits for an item; false when closed and drained, or cancelled. *waited_ns grows by the call's whole
  // time (as push's).
  bool pop(T* out, uint64_t* waited_ns) {
    const uint64_t t0 = now_ns();
    std::unique_lock<std::mutex> lock(mu_);
    ready_.wait(lock, [&] { return !items_.empty() || closed_ || cancelled_; });
    const bool popped = !cancelled_ && !items_.empty();
    if (popped) {
      *out = std::move(items_.front());
      items_.pop_front();
      room_.notify_one();
    }
    lock.unlock();
    *waited_ns += now_ns() - t0;
    return popped;
  }

  void close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    ready_.notify_all();
  }

  void cancel() {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    ready_.notify_all();
    room_.notify_all();
  }

  size_t capacity() const { return capacity_; }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return items_.size();
  }
  // The most items it ever held at once: never above capacity().
  size_t high_water() const {
    std::lock_guard<std::mutex> lock(mu_);
    return high_water_;
  }

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable ready_;
  std::condition_variable room_;
  std::deque<T> items_;
  size_t high_water_ = 0;
  bool closed_ = false;
  bool cancelled_ = false;
};

}  // namespace iofab
