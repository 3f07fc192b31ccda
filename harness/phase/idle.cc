#include "harness/phase/idle.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace iofab {

void idle_for(double seconds, const std::atomic<bool>& stop) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                     std::chrono::duration<double>(std::max(seconds, 0.0)));
  // 20 ms slices: a stop is seen within one, and the sleep costs no CPU.
  constexpr Clock::duration kSlice = std::chrono::milliseconds(20);
  while (!stop.load(std::memory_order_relaxed)) {
    const Clock::time_point now = Clock::now();
    if (now >= until) break;
    std::this_thread::sleep_for(std::min(until - now, kSlice));
  }
}

}  // namespace iofab
