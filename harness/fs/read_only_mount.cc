#include "harness/fs/read_only_mount.h"

#include <sys/statvfs.h>

namespace iofab {

bool on_read_only_mount(const std::string& path) {
  struct statvfs sv {};
  return statvfs(path.c_str(), &sv) == 0 && (sv.f_flag & ST_RDONLY) != 0;
}

}  // namespace iofab
