// BesideThread: one job at a time on a thread of its own, beside a synchronous engine's I/O on the
// caller's thread. A psync or mmap read or write at queue depth 1 leaves the device idle while its thread
// does the CPU work between two I/Os; with this, the work of one block overlaps the I/O of the next:
// restore's hash and model_load's tensor check of block b while block b + 1 is read, the data of block
// b + 1 made (FillAhead) while block b is written (issue 33, items 2 and 3).
//
// post() waits until the job before has finished, then hands this one over: jobs run in the order posted,
// never two at once, so a job may carry on a stream (a hash, a parser) the one before left. wait() returns
// once no job is left. The caller keeps what a job reads unchanged until the next post() or wait() returns.
//
// Thread-safety: one owner thread calls post, wait and busy_ns.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace iofab {

class BesideThread {
 public:
  BesideThread();
  ~BesideThread();  // waits for the last job
  BesideThread(const BesideThread&) = delete;
  BesideThread& operator=(const BesideThread&) = delete;

  void post(std::function<void()> job);
  void wait();
  // Nanoseconds spent running jobs, in total (after waiting for the last one).
  uint64_t busy_ns();

 private:
  void wait_idle(std::unique_lock<std::mutex>& lock);
  void loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::function<void()> job_;  // the job waiting or running; empty: idle
  bool quit_ = false;
  uint64_t busy_ns_ = 0;
  std::thread thread_;  // last: started once the rest is made
};

}  // namespace iofab
