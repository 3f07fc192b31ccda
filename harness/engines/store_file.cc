#include "harness/engines/store_file.h"

#include <unistd.h>

namespace iofab {

StoreFile& StoreFile::operator=(StoreFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = o.fd_;
    object_ = std::move(o.object_);
    path_ = std::move(o.path_);
    o.fd_ = -1;
  }
  return *this;
}

StoreFile::~StoreFile() {
  if (fd_ >= 0) close(fd_);
}

int StoreFile::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

}  // namespace iofab
