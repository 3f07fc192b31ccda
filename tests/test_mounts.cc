#include "test_mounts.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace iofab::testing {

BindMount::BindMount(const std::string& src, const std::string& dst, bool read_only) : dst_(dst) {
  if (mount(src.c_str(), dst.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    why_ = "bind mount of " + src + " at " + dst + " not permitted here: " + std::strerror(errno);
    return;
  }
  mounted_ = true;
  if (read_only && mount(nullptr, dst.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0) {
    why_ = "read-only remount of " + dst + " not permitted here: " + std::strerror(errno);
    umount2(dst.c_str(), MNT_DETACH);
    mounted_ = false;
  }
}

BindMount::~BindMount() {
  if (mounted_) umount2(dst_.c_str(), MNT_DETACH);
}

pid_t start_iofab(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> argv = {IOFAB_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> cargs;
    for (auto& a : argv) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    execv(cargs[0], cargs.data());
    _exit(127);
  }
  return pid;
}

}  // namespace iofab::testing
