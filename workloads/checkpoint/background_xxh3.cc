#include "workloads/checkpoint/background_xxh3.h"

#include <chrono>

namespace iofab {

BackgroundXxh3::BackgroundXxh3() : thread_([this] { loop(); }) {}

BackgroundXxh3::~BackgroundXxh3() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    wait_idle(lock);
    quit_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void BackgroundXxh3::wait_idle(std::unique_lock<std::mutex>& lock) {
  cv_.wait(lock, [this] { return data_ == nullptr; });
}

void BackgroundXxh3::reset() {
  std::unique_lock<std::mutex> lock(mu_);
  wait_idle(lock);
  hash_.reset();
}

void BackgroundXxh3::feed(const void* data, size_t len) {
  if (len == 0) return;
  {
    std::unique_lock<std::mutex> lock(mu_);
    wait_idle(lock);
    data_ = data;
    len_ = len;
  }
  cv_.notify_all();
}

uint64_t BackgroundXxh3::digest() {
  std::unique_lock<std::mutex> lock(mu_);
  wait_idle(lock);
  return hash_.digest();
}

uint64_t BackgroundXxh3::busy_ns() {
  std::unique_lock<std::mutex> lock(mu_);
  wait_idle(lock);
  return busy_ns_;
}

void BackgroundXxh3::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return quit_ || data_ != nullptr; });
    if (data_ == nullptr) return;  // quit, with nothing left to hash
    const void* data = data_;
    const size_t len = len_;
    // Hashed unlocked: the owner may wait for it, never for the lock while it runs.
    lock.unlock();
    const auto t0 = std::chrono::steady_clock::now();
    hash_.update(data, len);
    const auto spent = std::chrono::steady_clock::now() - t0;
    lock.lock();
    busy_ns_ += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(spent).count());
    data_ = nullptr;
    cv_.notify_all();
  }
}

}  // namespace iofab
