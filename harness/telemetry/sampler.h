// The host's telemetry while a phase runs: a thread that snapshots the kernel's counters every
// interval and keeps one sample (sample.h) per interval, plus a last one, shorter, at stop(). It
// measures its own cost (its thread's CPU time over the wall time it ran), which the report states.
//
// Thread-safety: start() and stop() from one thread; samples() after stop(); latest() from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "harness/telemetry/nvml_probe.h"
#include "harness/telemetry/sample.h"

namespace iofab {

struct TelemetryOptions {
  double interval_s = 1;
  std::vector<std::string> devices;  // block devices behind the target ("vda", "nvme0n1")
  std::string proc = "/proc";        // roots, for tests
  std::string sys = "/sys";
  bool gpus = true;                  // try NVML
};

// The counters now, from the roots in opts.
HostSnapshot take_snapshot(const TelemetryOptions& opts);

class TelemetrySampler {
 public:
  explicit TelemetrySampler(TelemetryOptions opts) : opts_(std::move(opts)) {}
  ~TelemetrySampler() { stop(); }
  TelemetrySampler(const TelemetrySampler&) = delete;
  TelemetrySampler& operator=(const TelemetrySampler&) = delete;

  void start();
  void stop();

  const std::vector<TelemetrySample>& samples() const { return samples_; }
  // The last whole interval's sample while it runs (a live stream's telemetry), if one was taken.
  std::optional<TelemetrySample> latest() const;
  double cpu_seconds() const { return cpu_ns_ * 1e-9; }  // the sampler thread's own
  double wall_seconds() const { return wall_ns_ * 1e-9; }
  const std::string& gpu_skip_reason() const { return gpu_reason_; }

 private:
  void loop();

  TelemetryOptions opts_;
  std::thread thread_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::vector<TelemetrySample> samples_;
  uint64_t cpu_ns_ = 0, wall_ns_ = 0;
  std::string gpu_reason_;
};

// {"interval_s", "samples": [...], "sampler_cpu_fraction", "gpus_skipped"}: what a phase's report keeps.
nlohmann::json telemetry_json(const TelemetrySampler& s, double interval_s);

}  // namespace iofab
