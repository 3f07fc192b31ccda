// Whether a folder's filesystem takes O_DIRECT, asked before any phase
// writes: some refuse it at open (EINVAL), and a phase that silently fell
// back to buffered I/O would report the page cache as the storage.
#pragma once

#include <string>

#include "harness/core/status.h"

namespace iofab {

// The run's probe file in its run folder: this prefix and the rank.
constexpr const char* kDirectProbePrefix = ".iofab-direct-probe-";

// Creates name in the folder dir_fd with O_DIRECT, then removes it. Sets *refused when the open
// failed with EINVAL (the filesystem does not do O_DIRECT); any other failure is returned.
Status probe_direct_io(int dir_fd, const std::string& name, bool* refused);

}  // namespace iofab
