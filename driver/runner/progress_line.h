// A live line on a terminal: phase, percent, current GB/s, ETA. Rank 0
// shows its own progress; nothing is printed when stderr is not a TTY.
#pragma once

#include <atomic>
#include <string>
#include <thread>

#include "harness/phase/phase.h"

namespace iofab {

class ProgressLine {
 public:
  // enabled: false for --quiet, non-zero ranks, or when stderr is no TTY.
  ProgressLine(const std::string& phase, Progress& progress, bool enabled);
  ~ProgressLine();  // stops the thread and clears the line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  void loop();
  std::string phase_;
  Progress& progress_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace iofab
