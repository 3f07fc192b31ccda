// One telemetry sample: the host's rates over one interval, made from two snapshots of its counters
// (proc_stats.h). Pure: make_sample is the arithmetic, tested on synthetic snapshots.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/telemetry/nvml_probe.h"
#include "harness/telemetry/proc_stats.h"

namespace iofab {

// Every counter a sample reads, at one instant.
struct HostSnapshot {
  uint64_t t_ns = 0;  // CLOCK_MONOTONIC
  CpuSnapshot cpu;
  MemSnapshot mem;
  std::map<std::string, DiskSnapshot> disks;
  NetSnapshot net;
  bool ib_present = false;
  NetSnapshot ib;
  uint64_t process_ticks = 0;  // iofab's own CPU time, user + system
  uint64_t ticks_per_s = 100;
};

struct DiskRates {
  std::string name;
  double read_bps = 0, write_bps = 0, read_iops = 0, write_iops = 0;
  double util = 0;         // fraction of the interval with I/O in flight
  uint64_t in_flight = 0;  // at the sample's end
};

struct TelemetrySample {
  double t_s = 0;  // the interval's end, seconds from the sampler's start
  double seconds = 0;
  double cpu_user = 0, cpu_system = 0, cpu_iowait = 0;  // fractions of all cores' time
  double busiest_core = 0;                              // busy fraction of the busiest core
  int busiest_core_index = -1;
  double process_cpu_cores = 0;  // iofab's own CPU time / the interval: 1.0 = one core all the time
  uint64_t mem_used = 0, mem_cached = 0, mem_dirty = 0, mem_writeback = 0;
  std::vector<DiskRates> disks;
  double net_rx_bps = 0, net_tx_bps = 0;
  std::optional<double> ib_rx_bps, ib_tx_bps;
  std::vector<GpuCounters> gpus;
};

// The rates between a and b (b later); start_ns: the sampler's start, for t_s.
TelemetrySample make_sample(const HostSnapshot& a, const HostSnapshot& b, uint64_t start_ns);
nlohmann::json to_json(const TelemetrySample& s);

}  // namespace iofab
