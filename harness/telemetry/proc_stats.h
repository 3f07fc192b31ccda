// The kernel's counters a telemetry sample is made of, parsed from their text: /proc/stat (CPU time
// per state, all cores and each), /proc/meminfo, /proc/diskstats, and the byte counters of network
// interfaces and InfiniBand ports under /sys/class. Parsers take the text and readers take a root
// folder, so tests feed them synthetic files.
//
// Thread-safety: reentrant.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace iofab {

// Clock ticks in each state since boot.
struct CpuTimes {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  uint64_t total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
  // Ticks neither idle nor waiting for I/O.
  uint64_t busy() const { return total() - idle - iowait; }
};
struct CpuSnapshot {
  CpuTimes all;
  std::vector<CpuTimes> cores;  // cpu0, cpu1, ... in order
};
bool parse_proc_stat(std::string_view text, CpuSnapshot* out);

struct MemSnapshot {  // bytes
  uint64_t total = 0, available = 0, cached = 0, dirty = 0, writeback = 0;
};
bool parse_meminfo(std::string_view text, MemSnapshot* out);

struct DiskSnapshot {
  uint64_t read_bytes = 0, write_bytes = 0, reads = 0, writes = 0;
  uint64_t in_flight = 0;     // I/Os in the device's queue now
  uint64_t io_ticks_ms = 0;   // time the device had I/O in flight: utilisation over an interval
};
// The lines of devices in /proc/diskstats' text; devices not listed are absent from *out.
void parse_diskstats(std::string_view text, const std::vector<std::string>& devices,
                     std::map<std::string, DiskSnapshot>* out);

struct NetSnapshot {  // bytes, summed
  uint64_t rx = 0, tx = 0;
};
// Every interface below root (/sys/class/net) but loopback: statistics/{rx,tx}_bytes.
NetSnapshot read_net(const std::string& root);
// Every port of every device below root (/sys/class/infiniband): counters/port_{rcv,xmit}_data, which
// count 4-byte words. *present: whether any port was found.
NetSnapshot read_ib(const std::string& root, bool* present);

// This process's CPU time (user + system) in clock ticks, from /proc/<pid>/stat's text; false when
// it cannot be read.
bool parse_process_ticks(std::string_view text, uint64_t* ticks);

// A whole small file ("" when unreadable): /proc files report size 0, so read until EOF.
std::string read_small_file(const std::string& path);

}  // namespace iofab
