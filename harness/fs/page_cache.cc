#include "harness/fs/page_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

namespace iofab {

Status drop_cached_pages(int fd) {
  // Dirty pages cannot be dropped; write them back first.
  if (fdatasync(fd) != 0 && errno != EINVAL) return Status::FromErrno("fdatasync", errno);
  int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  if (rc != 0) return Status::FromErrno("posix_fadvise DONTNEED", rc);
  return Status::Ok();
}

Status drop_cached_range(int fd, uint64_t offset, uint64_t len) {
  const int rc = posix_fadvise(fd, static_cast<off_t>(offset), static_cast<off_t>(len), POSIX_FADV_DONTNEED);
  return rc == 0 ? Status::Ok() : Status::FromErrno("posix_fadvise DONTNEED", rc);
}

Status resident_bytes(int fd, uint64_t size, uint64_t* bytes) {
  *bytes = 0;
  if (size == 0) return Status::Ok();
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  // Map in windows so a huge file never needs a huge vector or address range at once.
  constexpr uint64_t kWindow = 1ULL << 30;
  std::vector<unsigned char> vec;
  for (uint64_t off = 0; off < size; off += kWindow) {
    const uint64_t len = std::min(kWindow, size - off);
    void* p = mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(off));
    if (p == MAP_FAILED) return Status::FromErrno("mmap for mincore", errno);
    const uint64_t pages = (len + page - 1) / page;
    vec.assign(pages, 0);
    int rc = mincore(p, len, vec.data());
    int err = errno;
    munmap(p, len);
    if (rc != 0) return Status::FromErrno("mincore", err);
    for (uint64_t i = 0; i < pages; ++i) {
      if (vec[i] & 1) *bytes += std::min(page, len - i * page);
    }
  }
  return Status::Ok();
}

}  // namespace iofab
