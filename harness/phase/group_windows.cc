#include "harness/phase/group_windows.h"

#include <chrono>

namespace iofab {

void GroupWindows::publish(std::string_view kind, uint64_t start_ns, uint64_t end_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  windows_.push_back({std::string(kind), start_ns, end_ns < start_ns ? start_ns : end_ns});
}

void GroupWindows::publisher_done() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (open_ > 0) --open_;
  }
  done_cv_.notify_all();
}

std::vector<TimeWindow> GroupWindows::wait_all(const std::atomic<bool>& stop, bool* complete) const {
  std::unique_lock<std::mutex> lock(mu_);
  while (open_ > 0 && !stop.load()) done_cv_.wait_for(lock, std::chrono::milliseconds(50));
  *complete = open_ == 0;
  return windows_;
}

void GroupWindows::arrive(size_t member) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (member < arrived_.size()) arrived_[member] = true;
  }
  done_cv_.notify_all();
}

void GroupWindows::wait_start(const std::atomic<bool>& stop) const {
  std::unique_lock<std::mutex> lock(mu_);
  auto all = [&] {
    for (bool a : arrived_) {
      if (!a) return false;
    }
    return true;
  };
  while (!all() && !stop.load()) done_cv_.wait_for(lock, std::chrono::milliseconds(50));
}

}  // namespace iofab
