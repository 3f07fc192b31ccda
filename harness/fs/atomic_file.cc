#include "harness/fs/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace iofab {

namespace {

// The temp file being written, kept in static storage so a signal handler may read it.
char g_pending_tmp[4096];
std::atomic<bool> g_pending{false};

// Marks tmp as in progress (paths too long to keep are simply not tracked).
struct PendingTemp {
  explicit PendingTemp(const std::string& tmp) {
    if (tmp.size() >= sizeof g_pending_tmp) return;
    std::memcpy(g_pending_tmp, tmp.c_str(), tmp.size() + 1);
    g_pending.store(true);
  }
  ~PendingTemp() { g_pending.store(false); }
};

}  // namespace

void remove_partial_report_file() {
  if (g_pending.load()) unlink(g_pending_tmp);
}

namespace {

// Creates a temp file of its own beside path: O_EXCL, so a file already at the name (a crash's
// leftover, or a hard link planted to another file) is never truncated and written through; the
// next name is tried instead (PATH.tmp.PID, then PATH.tmp.PID.1, ...: two threads writing one path
// get one each). *tmp is the name made.
int create_temp_beside(const std::string& path, std::string* tmp) {
  const std::string base = path + ".tmp." + std::to_string(getpid());
  for (int tries = 0; tries < 100; ++tries) {
    *tmp = tries == 0 ? base : base + "." + std::to_string(tries);
    const int fd = open(tmp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

}  // namespace

Status write_file_atomic(const std::string& path, const std::string& text) {
  std::string tmp;
  int fd = create_temp_beside(path, &tmp);
  if (fd < 0) return Status::FromErrno("create " + tmp, errno);
  PendingTemp pending(tmp);
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = write(fd, text.data() + off, text.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      close(fd);
      unlink(tmp.c_str());
      return Status::FromErrno("write " + tmp, e);
    }
    off += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    int e = errno;
    unlink(tmp.c_str());
    return Status::FromErrno("fsync " + tmp, e);
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    unlink(tmp.c_str());
    return Status::FromErrno("rename " + tmp + " to " + path, e);
  }
  // The rename is durable only once the folder holding it is synced.
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return Status::Ok();
}

}  // namespace iofab
