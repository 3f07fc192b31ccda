#include "harness/fs/target_counters.h"

#include "harness/fs/diskstats.h"
#include "harness/fs/mountstats.h"

namespace iofab {

TargetCounters sample_target_counters(const TargetInfo& target) {
  TargetCounters c;
  c.device_seen = !target.devices.empty();
  for (const auto& d : target.devices) {
    const auto dc = read_disk_counters(d);
    if (!dc) {
      c.device_seen = false;
      break;
    }
    c.device_read_bytes += dc->read_bytes;
    c.device_write_bytes += dc->write_bytes;
  }
  if (!c.device_seen) c.device_read_bytes = c.device_write_bytes = 0;
  if (target.fs_type.rfind("nfs", 0) == 0) {
    if (const auto cc = read_client_counters(target.mount_point)) {
      c.client_seen = true;
      c.client_read_bytes = cc->server_read_bytes;
      c.client_write_bytes = cc->server_write_bytes;
    }
  }
  return c;
}

TargetCounters operator-(const TargetCounters& a, const TargetCounters& b) {
  auto sub = [](uint64_t x, uint64_t y) { return x >= y ? x - y : 0; };
  TargetCounters d;
  d.device_seen = a.device_seen && b.device_seen;
  if (d.device_seen) {
    d.device_read_bytes = sub(a.device_read_bytes, b.device_read_bytes);
    d.device_write_bytes = sub(a.device_write_bytes, b.device_write_bytes);
  }
  d.client_seen = a.client_seen && b.client_seen;
  if (d.client_seen) {
    d.client_read_bytes = sub(a.client_read_bytes, b.client_read_bytes);
    d.client_write_bytes = sub(a.client_write_bytes, b.client_write_bytes);
  }
  return d;
}

}  // namespace iofab
