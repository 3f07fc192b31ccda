#include "harness/fs/diskstats.h"

#include <fstream>
#include <sstream>

namespace iofab {

std::optional<DiskCounters> read_disk_counters(const std::string& device) {
  if (device.empty()) return std::nullopt;
  std::ifstream f("/proc/diskstats");
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream ls(line);
    unsigned major = 0, minor = 0;
    std::string name;
    uint64_t rd = 0, rd_merged = 0, rd_sectors = 0, rd_ms = 0, wr = 0, wr_merged = 0, wr_sectors = 0;
    if (!(ls >> major >> minor >> name >> rd >> rd_merged >> rd_sectors >> rd_ms >> wr >> wr_merged >> wr_sectors)) {
      continue;
    }
    if (name != device) continue;
    // diskstats counts 512-byte sectors whatever the device's block size.
    return DiskCounters{rd_sectors * 512, wr_sectors * 512, rd, wr};
  }
  return std::nullopt;
}

DiskCounters operator-(const DiskCounters& a, const DiskCounters& b) {
  auto sub = [](uint64_t x, uint64_t y) { return x >= y ? x - y : 0; };
  return {sub(a.read_bytes, b.read_bytes), sub(a.write_bytes, b.write_bytes), sub(a.reads, b.reads),
          sub(a.writes, b.writes)};
}

}  // namespace iofab
