// Honesty about caches: page-cache speed must never be reported as storage
// speed. These calls drop a file's cached pages and measure how much of it
// is resident, so a phase can say whether an epoch or a restore was cold.
#pragma once

#include <cstdint>

#include "harness/core/status.h"

namespace iofab {

// Writes back and drops the cached pages of fd (fdatasync, then
// posix_fadvise DONTNEED). The kernel may keep pages it cannot drop (mapped,
// dirty on some filesystems, or a filesystem that ignores the advice):
// measure with resident_bytes() afterwards to know.
Status drop_cached_pages(int fd);

// Drops the cached pages of fd's [offset, offset + len) (posix_fadvise DONTNEED; len 0: to the end),
// without writing anything back: for pages just read, which are clean. The kernel drops only whole pages
// inside the range, so a caller that wants a byte range gone passes it widened to pages.
Status drop_cached_range(int fd, uint64_t offset, uint64_t len);

// Bytes of the file's [0, size) resident in the page cache now, via mincore
// on a read-only mapping (no data is read). *bytes gets 0 for an empty file.
Status resident_bytes(int fd, uint64_t size, uint64_t* bytes);

}  // namespace iofab
