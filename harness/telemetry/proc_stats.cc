#include "harness/telemetry/proc_stats.h"

#include <dirent.h>

#include <charconv>
#include <cstdio>
#include <memory>

namespace iofab {
namespace {

// The whitespace-separated fields of a line.
std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

bool to_u64(std::string_view s, uint64_t* v) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size();
}

template <typename F>
void for_each_line(std::string_view text, F f) {
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    f(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

std::vector<std::string> list_dir(const std::string& path) {
  std::vector<std::string> names;
  std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(path.c_str()), closedir);
  if (!d) return names;
  while (const dirent* e = readdir(d.get())) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  return names;
}

uint64_t read_u64_file(const std::string& path) {
  uint64_t v = 0;
  std::string text = read_small_file(path);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return to_u64(text, &v) ? v : 0;
}

}  // namespace

std::string read_small_file(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "re"), std::fclose);
  if (!f) return "";
  std::string text;
  char buf[8192];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) text.append(buf, n);
  return text;
}

bool parse_proc_stat(std::string_view text, CpuSnapshot* out) {
  bool found = false;
  for_each_line(text, [&](std::string_view line) {
    const auto f = fields(line);
    if (f.size() < 9 || !f[0].starts_with("cpu")) return;
    CpuTimes t;
    uint64_t* slots[] = {&t.user, &t.nice, &t.system, &t.idle, &t.iowait, &t.irq, &t.softirq, &t.steal};
    for (size_t i = 0; i < 8; ++i) {
      if (!to_u64(f[i + 1], slots[i])) return;
    }
    if (f[0] == "cpu") {
      out->all = t;
      found = true;
    } else {
      out->cores.push_back(t);
    }
  });
  return found;
}

bool parse_meminfo(std::string_view text, MemSnapshot* out) {
  int found = 0;
  for_each_line(text, [&](std::string_view line) {
    const auto f = fields(line);
    if (f.size() < 2) return;
    uint64_t kib = 0;
    if (!to_u64(f[1], &kib)) return;
    const uint64_t bytes = kib * 1024;
    if (f[0] == "MemTotal:") out->total = bytes, ++found;
    if (f[0] == "MemAvailable:") out->available = bytes, ++found;
    if (f[0] == "Cached:") out->cached = bytes;
    if (f[0] == "Dirty:") out->dirty = bytes;
    if (f[0] == "Writeback:") out->writeback = bytes;
  });
  return found == 2;
}

void parse_diskstats(std::string_view text, const std::vector<std::string>& devices,
                     std::map<std::string, DiskSnapshot>* out) {
  for_each_line(text, [&](std::string_view line) {
    const auto f = fields(line);
    // major minor name reads merged sectors ms writes merged sectors ms in_flight io_ticks ...
    if (f.size() < 14) return;
    const std::string name(f[2]);
    bool wanted = false;
    for (const auto& d : devices) wanted = wanted || d == name;
    if (!wanted) return;
    DiskSnapshot s;
    uint64_t rsect = 0, wsect = 0;
    if (!to_u64(f[3], &s.reads) || !to_u64(f[5], &rsect) || !to_u64(f[7], &s.writes) || !to_u64(f[9], &wsect) ||
        !to_u64(f[11], &s.in_flight) || !to_u64(f[12], &s.io_ticks_ms)) {
      return;
    }
    // /proc/diskstats counts 512-byte sectors whatever the device's own sector size.
    s.read_bytes = rsect * 512;
    s.write_bytes = wsect * 512;
    (*out)[name] = s;
  });
}

bool parse_process_ticks(std::string_view text, uint64_t* ticks) {
  // The command name (field 2) may hold spaces and parentheses: fields count from the last ')'.
  const size_t close = text.rfind(')');
  if (close == std::string_view::npos) return false;
  const auto f = fields(text.substr(close + 1));
  // After the name: state is field 3, so utime (14) and stime (15) are at 11 and 12 here.
  uint64_t utime = 0, stime = 0;
  if (f.size() < 13 || !to_u64(f[11], &utime) || !to_u64(f[12], &stime)) return false;
  *ticks = utime + stime;
  return true;
}

NetSnapshot read_net(const std::string& root) {
  NetSnapshot s;
  for (const std::string& iface : list_dir(root)) {
    if (iface == "lo") continue;
    s.rx += read_u64_file(root + "/" + iface + "/statistics/rx_bytes");
    s.tx += read_u64_file(root + "/" + iface + "/statistics/tx_bytes");
  }
  return s;
}

NetSnapshot read_ib(const std::string& root, bool* present) {
  NetSnapshot s;
  *present = false;
  for (const std::string& dev : list_dir(root)) {
    for (const std::string& port : list_dir(root + "/" + dev + "/ports")) {
      const std::string c = root + "/" + dev + "/ports/" + port + "/counters/";
      *present = true;
      s.rx += read_u64_file(c + "port_rcv_data") * 4;
      s.tx += read_u64_file(c + "port_xmit_data") * 4;
    }
  }
  return s;
}

}  // namespace iofab
