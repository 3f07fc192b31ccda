#include "harness/engines/beside_thread.h"

#include <chrono>
#include <utility>

namespace iofab {

BesideThread::BesideThread() : thread_([this] { loop(); }) {}

BesideThread::~BesideThread() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    wait_idle(lock);
    quit_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void BesideThread::wait_idle(std::unique_lock<std::mutex>& lock) {
  cv_.wait(lock, [this] { return !job_; });
}

void BesideThread::post(std::function<void()> job) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    wait_idle(lock);
    job_ = std::move(job);
  }
  cv_.notify_all();
}

void BesideThread::wait() {
  std::unique_lock<std::mutex> lock(mu_);
  wait_idle(lock);
}

uint64_t BesideThread::busy_ns() {
  std::unique_lock<std::mutex> lock(mu_);
  wait_idle(lock);
  return busy_ns_;
}

void BesideThread::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return quit_ || job_; });
    if (!job_) return;  // quit, with nothing left to run
    // Run unlocked: the owner may wait for the job, never for the lock while it runs.
    lock.unlock();
    const auto t0 = std::chrono::steady_clock::now();
    job_();
    const auto spent = std::chrono::steady_clock::now() - t0;
    lock.lock();
    busy_ns_ += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(spent).count());
    job_ = nullptr;
    cv_.notify_all();
  }
}

}  // namespace iofab
