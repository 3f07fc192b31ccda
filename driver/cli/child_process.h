// Running another program and reading what it prints (calibrate's probes).
#pragma once

#include <string>
#include <vector>

#include "harness/core/status.h"

namespace iofab {

struct ChildResult {
  int exit_code = -1;  // the exit status; 128 + the signal when a signal ended it
  std::string out;     // stdout, whole
  std::string err;     // stderr, its last 4 KiB
};

// Runs argv (argv[0] looked up on PATH when it has no '/'), stdin from /dev/null. Fails only when it
// could not be started.
Status run_child(const std::vector<std::string>& argv, ChildResult* result);

}  // namespace iofab
