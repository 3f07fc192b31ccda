#include "harness/telemetry/sampler.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

namespace iofab {
namespace {

uint64_t clock_ns(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

HostSnapshot take_snapshot(const TelemetryOptions& opts) {
  HostSnapshot s;
  s.t_ns = clock_ns(CLOCK_MONOTONIC);
  parse_proc_stat(read_small_file(opts.proc + "/stat"), &s.cpu);
  parse_meminfo(read_small_file(opts.proc + "/meminfo"), &s.mem);
  if (!opts.devices.empty()) parse_diskstats(read_small_file(opts.proc + "/diskstats"), opts.devices, &s.disks);
  s.net = read_net(opts.sys + "/class/net");
  s.ib = read_ib(opts.sys + "/class/infiniband", &s.ib_present);
  parse_process_ticks(read_small_file(opts.proc + "/self/stat"), &s.process_ticks);
  s.ticks_per_s = static_cast<uint64_t>(std::max(1L, sysconf(_SC_CLK_TCK)));
  return s;
}

void TelemetrySampler::start() {
  if (opts_.interval_s <= 0 || thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void TelemetrySampler::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void TelemetrySampler::loop() {
  const uint64_t cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  const uint64_t wall0 = clock_ns(CLOCK_MONOTONIC);
  std::unique_ptr<NvmlProbe> nvml;
  if (opts_.gpus) {
    nvml = std::make_unique<NvmlProbe>();
    if (!nvml->available()) gpu_reason_ = nvml->skip_reason();
  } else {
    gpu_reason_ = "GPU telemetry off";
  }
  HostSnapshot prev = take_snapshot(opts_);
  const auto interval = std::chrono::nanoseconds(static_cast<uint64_t>(opts_.interval_s * 1e9));
  auto next = std::chrono::steady_clock::now() + interval;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    // Woken early by stop(): the last sample covers the part of an interval since the one before.
    const bool stopping = cv_.wait_until(lock, next, [this] { return stopping_; });
    lock.unlock();
    HostSnapshot cur = take_snapshot(opts_);
    TelemetrySample s = make_sample(prev, cur, wall0);
    if (nvml != nullptr && nvml->available()) s.gpus = nvml->read();
    prev = std::move(cur);
    next += interval;
    lock.lock();
    // Under the lock: a live stream reads the latest sample while the phase runs (latest()).
    if (s.seconds > 0) samples_.push_back(std::move(s));
    if (stopping) break;
  }
  cpu_ns_ = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
  wall_ns_ = clock_ns(CLOCK_MONOTONIC) - wall0;
}

std::optional<TelemetrySample> TelemetrySampler::latest() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (samples_.empty()) return std::nullopt;
  return samples_.back();
}

nlohmann::json telemetry_json(const TelemetrySampler& s, double interval_s) {
  nlohmann::json samples = nlohmann::json::array();
  for (const TelemetrySample& x : s.samples()) samples.push_back(to_json(x));
  nlohmann::json j = {{"interval_s", interval_s},
                      {"samples", samples},
                      {"sampler_cpu_seconds", s.cpu_seconds()},
                      {"sampler_cpu_fraction", s.wall_seconds() > 0 ? s.cpu_seconds() / s.wall_seconds() : 0.0}};
  if (!s.gpu_skip_reason().empty()) j["gpus_skipped"] = s.gpu_skip_reason();
  return j;
}

}  // namespace iofab
