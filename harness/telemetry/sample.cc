#include "harness/telemetry/sample.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace iofab {
namespace {

// Counters only grow; a reset (a device re-added) reads as nothing moved, not as a huge negative.
uint64_t delta(uint64_t before, uint64_t after) { return after >= before ? after - before : 0; }

double fraction(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

TelemetrySample make_sample(const HostSnapshot& a, const HostSnapshot& b, uint64_t start_ns) {
  TelemetrySample s;
  s.seconds = static_cast<double>(delta(a.t_ns, b.t_ns)) * 1e-9;
  s.t_s = static_cast<double>(delta(start_ns, b.t_ns)) * 1e-9;
  const uint64_t total = delta(a.cpu.all.total(), b.cpu.all.total());
  s.cpu_user = fraction(delta(a.cpu.all.user + a.cpu.all.nice, b.cpu.all.user + b.cpu.all.nice), total);
  s.cpu_system = fraction(delta(a.cpu.all.system + a.cpu.all.irq + a.cpu.all.softirq,
                                b.cpu.all.system + b.cpu.all.irq + b.cpu.all.softirq),
                          total);
  s.cpu_iowait = fraction(delta(a.cpu.all.iowait, b.cpu.all.iowait), total);
  for (size_t c = 0; c < std::min(a.cpu.cores.size(), b.cpu.cores.size()); ++c) {
    const double busy = fraction(delta(a.cpu.cores[c].busy(), b.cpu.cores[c].busy()),
                                 delta(a.cpu.cores[c].total(), b.cpu.cores[c].total()));
    if (s.busiest_core_index < 0 || busy > s.busiest_core) {
      s.busiest_core = busy;
      s.busiest_core_index = static_cast<int>(c);
    }
  }
  if (s.seconds > 0 && b.ticks_per_s > 0) {
    s.process_cpu_cores = static_cast<double>(delta(a.process_ticks, b.process_ticks)) /
                          static_cast<double>(b.ticks_per_s) / s.seconds;
  }
  s.mem_used = b.mem.total - std::min(b.mem.total, b.mem.available);
  s.mem_cached = b.mem.cached;
  s.mem_dirty = b.mem.dirty;
  s.mem_writeback = b.mem.writeback;
  const double dt = s.seconds > 0 ? s.seconds : 1;
  for (const auto& [name, after] : b.disks) {
    const auto it = a.disks.find(name);
    if (it == a.disks.end()) continue;
    const DiskSnapshot& before = it->second;
    DiskRates d;
    d.name = name;
    d.read_bps = static_cast<double>(delta(before.read_bytes, after.read_bytes)) / dt;
    d.write_bps = static_cast<double>(delta(before.write_bytes, after.write_bytes)) / dt;
    d.read_iops = static_cast<double>(delta(before.reads, after.reads)) / dt;
    d.write_iops = static_cast<double>(delta(before.writes, after.writes)) / dt;
    d.util = std::min(1.0, static_cast<double>(delta(before.io_ticks_ms, after.io_ticks_ms)) * 1e-3 / dt);
    d.in_flight = after.in_flight;
    s.disks.push_back(d);
  }
  s.net_rx_bps = static_cast<double>(delta(a.net.rx, b.net.rx)) / dt;
  s.net_tx_bps = static_cast<double>(delta(a.net.tx, b.net.tx)) / dt;
  if (a.ib_present && b.ib_present) {
    s.ib_rx_bps = static_cast<double>(delta(a.ib.rx, b.ib.rx)) / dt;
    s.ib_tx_bps = static_cast<double>(delta(a.ib.tx, b.ib.tx)) / dt;
  }
  return s;
}

nlohmann::json to_json(const TelemetrySample& s) {
  nlohmann::json j = {{"t_s", s.t_s},
                      {"seconds", s.seconds},
                      {"cpu_user", s.cpu_user},
                      {"cpu_system", s.cpu_system},
                      {"cpu_iowait", s.cpu_iowait},
                      {"busiest_core", s.busiest_core},
                      {"busiest_core_index", s.busiest_core_index},
                      {"process_cpu_cores", s.process_cpu_cores},
                      {"mem_used_bytes", s.mem_used},
                      {"mem_cached_bytes", s.mem_cached},
                      {"mem_dirty_bytes", s.mem_dirty},
                      {"mem_writeback_bytes", s.mem_writeback},
                      {"net_rx_bytes_per_s", s.net_rx_bps},
                      {"net_tx_bytes_per_s", s.net_tx_bps}};
  nlohmann::json disks = nlohmann::json::array();
  for (const DiskRates& d : s.disks) {
    disks.push_back({{"device", d.name},
                     {"read_bytes_per_s", d.read_bps},
                     {"write_bytes_per_s", d.write_bps},
                     {"read_iops", d.read_iops},
                     {"write_iops", d.write_iops},
                     {"util", d.util},
                     {"in_flight", d.in_flight}});
  }
  j["disks"] = disks;
  if (s.ib_rx_bps) {
    j["ib_rx_bytes_per_s"] = *s.ib_rx_bps;
    j["ib_tx_bytes_per_s"] = *s.ib_tx_bps;
  }
  if (!s.gpus.empty()) {
    nlohmann::json gpus = nlohmann::json::array();
    for (const GpuCounters& g : s.gpus) {
      gpus.push_back({{"index", g.index},
                      {"util", g.util},
                      {"memory_used_bytes", g.memory_used},
                      {"pcie_rx_bytes_per_s", g.pcie_rx_bps},
                      {"pcie_tx_bytes_per_s", g.pcie_tx_bps}});
    }
    j["gpus"] = gpus;
  }
  return j;
}

}  // namespace iofab
