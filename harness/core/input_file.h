// Opening and reading files that someone else made (suites, reports, checkpoint
// and dataset manifests, shards, config files). A path may name a FIFO, a
// device or a folder by mistake or on purpose: open() of a FIFO blocks until a
// writer comes (Ctrl-C cannot end it), /dev/zero never ends. So every such open
// is non-blocking, anything but a regular file is refused naming what it is,
// and whole-file reads stop at a size limit.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "harness/core/status.h"

namespace iofab {

// Limits for whole-file reads: far beyond any real file of the kind, far below
// what would hurt a node.
inline constexpr uint64_t kMaxSuiteFileBytes = 16ULL << 20;
inline constexpr uint64_t kMaxReportFileBytes = 256ULL << 20;
inline constexpr uint64_t kMaxConfigFileBytes = 1ULL << 20;

// "a FIFO", "a character device", "a folder", "a socket", ...
std::string file_kind_name(mode_t mode);

// Opens name (below dirfd; AT_FDCWD for a plain path) read-only with
// O_NONBLOCK | O_CLOEXEC plus extra_flags (O_NOFOLLOW, O_DIRECT), refuses
// anything but a regular file, then clears O_NONBLOCK so the fd behaves as a
// plain one. Errors: "NAME: <strerror>" (IoError) or "NAME: a FIFO, expected a
// regular file" (InvalidArgument). *st (optional) gets the fstat.
Status open_regular_file_at(int dirfd, std::string_view name, int extra_flags, int* fd,
                            struct stat* st = nullptr);

// Reads the whole regular file name (as open_regular_file_at) into *text;
// more than max_bytes is refused naming the limit (InvalidArgument), also for
// files whose size fstat does not know (procfs).
Status read_input_file_at(int dirfd, std::string_view name, uint64_t max_bytes, int extra_flags,
                          std::string* text);
inline Status read_input_file(const std::string& path, uint64_t max_bytes, std::string* text) {
  return read_input_file_at(AT_FDCWD, path, max_bytes, 0, text);
}

}  // namespace iofab
