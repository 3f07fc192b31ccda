#include "harness/fs/direct_probe.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace iofab {

Status probe_direct_io(int dir_fd, const std::string& name, bool* refused) {
  *refused = false;
  const int fd =
      openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_DIRECT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int err = errno;
    if (err == EINVAL) {
      *refused = true;
      // Some filesystems create the file and then refuse the flag.
      unlinkat(dir_fd, name.c_str(), 0);
      return Status::Ok();
    }
    return Status::FromErrno("open with O_DIRECT", err);
  }
  close(fd);
  if (unlinkat(dir_fd, name.c_str(), 0) != 0) return Status::FromErrno("remove " + name, errno);
  return Status::Ok();
}

}  // namespace iofab
