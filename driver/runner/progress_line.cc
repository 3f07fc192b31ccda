#include "driver/runner/progress_line.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "harness/core/units.h"
#include "harness/engines/io_pump.h"

namespace iofab {

ProgressLine::ProgressLine(const std::string& phase, Progress& progress, bool enabled)
    : phase_(phase), progress_(progress) {
  if (enabled && isatty(2)) thread_ = std::thread([this] { loop(); });
}

ProgressLine::~ProgressLine() {
  done_.store(true);
  if (thread_.joinable()) {
    thread_.join();
    std::fprintf(stderr, "\r\033[K");
  }
}

void ProgressLine::loop() {
  uint64_t last_bytes = progress_.done_bytes.load();
  uint64_t last_t = now_ns();
  while (!done_.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    const uint64_t bytes = progress_.done_bytes.load();
    const uint64_t total = progress_.total_bytes.load();
    const uint64_t t = now_ns();
    const double rate = t > last_t ? (bytes - last_bytes) / ((t - last_t) * 1e-9) : 0.0;
    last_bytes = bytes;
    last_t = t;
    std::string line = "\r\033[K" + phase_;
    if (total > 0) {
      char pct[32];
      std::snprintf(pct, sizeof pct, " %5.1f%%", 100.0 * static_cast<double>(bytes) / static_cast<double>(total));
      line += pct;
    }
    line += "  " + units::format_rate(rate);
    if (total > bytes && rate > 0) line += "  ETA " + units::format_duration((total - bytes) / rate);
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
  }
}

}  // namespace iofab
