// GroupWindows: what the phases of one concurrent group (a suite entry
// {"concurrent": [...]}) tell each other about time. A phase that causes
// interference publishes its windows (a checkpoint's bursts and drains,
// in now_ns() time); a phase that measures under it reads them, once every
// publisher has ended, to split its own figures into inside and outside.
//
// Windows are per process: each rank compares its own phases' timestamps,
// taken with the same monotonic clock, so no clock needs to agree across
// hosts.
//
// It is also the group's start gate: a phase that sets up first (generates
// its dataset) waits there until every phase of the group is set up, so that
// what they measure starts together.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace iofab {

struct TimeWindow {
  std::string kind;  // what the publisher was doing: "burst", "drain"
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

class GroupWindows {
 public:
  // publishers: how many phases of the group publish windows; each calls publisher_done() once.
  // members: how many phases pass the start gate.
  GroupWindows(int publishers, size_t members) : open_(publishers), arrived_(members, false) {}

  void publish(std::string_view kind, uint64_t start_ns, uint64_t end_ns);
  // A publisher has ended (whatever its outcome): it publishes nothing more. The runner calls it.
  void publisher_done();
  // Every window, once every publisher has ended, or as they stand when stop is set first (then
  // *complete is false). Polls stop every 50 ms.
  std::vector<TimeWindow> wait_all(const std::atomic<bool>& stop, bool* complete) const;

  // Member m is set up (or has ended, or never sets up); a second call does nothing.
  void arrive(size_t member);
  // Returns once every member has arrived, or stop is set.
  void wait_start(const std::atomic<bool>& stop) const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable done_cv_;
  int open_;
  std::vector<TimeWindow> windows_;
  std::vector<bool> arrived_;
};

}  // namespace iofab
