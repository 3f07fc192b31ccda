#include "harness/core/input_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace iofab {

namespace {

std::string limit_text(uint64_t bytes) {
  if (bytes >= (1ULL << 20) && bytes % (1ULL << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

std::string file_kind_name(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

Status open_regular_file_at(int dirfd, std::string_view name, int extra_flags, int* fd, struct stat* st) {
  const std::string n(name);
  const int f = openat(dirfd, n.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | extra_flags);
  if (f < 0) {
    // O_NOFOLLOW on a symbolic link gives ELOOP: say what it is.
    if (errno == ELOOP && (extra_flags & O_NOFOLLOW) != 0) {
      return Status::Invalid(n + ": a symbolic link, expected a regular file");
    }
    return Status::FromErrno(n, errno);
  }
  struct stat s {};
  if (fstat(f, &s) != 0) {
    const int e = errno;
    close(f);
    return Status::FromErrno(n, e);
  }
  if (!S_ISREG(s.st_mode)) {
    close(f);
    return Status::Invalid(n + ": " + file_kind_name(s.st_mode) + ", expected a regular file");
  }
  // Only FIFOs and devices care about O_NONBLOCK; clear it anyway so engines see a plain fd.
  const int fl = fcntl(f, F_GETFL);
  if (fl < 0 || fcntl(f, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    const int e = errno;
    close(f);
    return Status::FromErrno(n, e);
  }
  *fd = f;
  if (st != nullptr) *st = s;
  return Status::Ok();
}

Status read_input_file_at(int dirfd, std::string_view name, uint64_t max_bytes, int extra_flags,
                          std::string* text) {
  int fd = -1;
  struct stat st {};
  Status s = open_regular_file_at(dirfd, name, extra_flags, &fd, &st);
  if (!s.ok()) return s;
  auto too_big = [&] {
    return Status::Invalid(std::string(name) + ": larger than " + limit_text(max_bytes) +
                           ", the most iofab reads for this file");
  };
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    close(fd);
    return too_big();
  }
  text->clear();
  text->reserve(static_cast<size_t>(st.st_size));
  char buf[65536];
  while (true) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      close(fd);
      return Status::FromErrno(std::string(name), e);
    }
    if (n == 0) break;
    text->append(buf, static_cast<size_t>(n));
    if (text->size() > max_bytes) {  // grew while read, or a size fstat does not know
      close(fd);
      text->clear();
      return too_big();
    }
  }
  close(fd);
  return Status::Ok();
}

}  // namespace iofab
