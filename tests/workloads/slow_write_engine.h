// An Engine decorator for tests: every write waits a fixed delay before the
// wrapped engine does it, and the time the first write began is kept. It makes
// "does this span include the writes?" a question of structure, not of speed:
// a span that includes N writes lasts at least N delays, on any machine.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "harness/engines/engine.h"
#include "harness/engines/io_pump.h"
#include "harness/forwarding_engine.h"
#include "harness/phase/phase.h"

namespace iofab::testing {

// Shared by every engine one factory makes (one per worker).
struct SlowWriteLog {
  std::atomic<uint64_t> writes{0};
  std::atomic<uint64_t> first_write_ns{0};  // now_ns() when the first write began; 0: none yet
};

class SlowWriteEngine final : public ForwardingEngine {
 public:
  SlowWriteEngine(std::unique_ptr<Engine> inner, std::chrono::nanoseconds delay, SlowWriteLog* log)
      : ForwardingEngine(std::move(inner)), delay_(delay), log_(log) {}

  QueueResult queue(const IoRequest& req, IoCompletion* done) override {
    if (req.op == IoOp::kWrite) {
      uint64_t none = 0;
      log_->first_write_ns.compare_exchange_strong(none, now_ns());
      log_->writes.fetch_add(1);
      std::this_thread::sleep_for(delay_);
    }
    return inner_->queue(req, done);
  }

 private:
  std::chrono::nanoseconds delay_;
  SlowWriteLog* log_;
};

// A factory for PhaseContext::engines that wraps the engine table's engines.
inline EngineMaker slow_write_engines(std::chrono::nanoseconds delay, SlowWriteLog* log) {
  return [delay, log](std::string_view name, const EngineOptions& opts, std::unique_ptr<Engine>* out) {
    std::unique_ptr<Engine> inner;
    Status s = make_engine(name, opts, &inner);
    if (s.ok()) *out = std::make_unique<SlowWriteEngine>(std::move(inner), delay, log);
    return s;
  };
}

}  // namespace iofab::testing
