#include "harness/store/store.h"

#include <unistd.h>

namespace iofab {

StoreFile& StoreFile::operator=(StoreFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = o.fd_;
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

Status check_store_path(std::string_view path, bool allowed_root) {
  if (path.empty())
    return allowed_root ? Status::Ok() : Status::Invalid("store path: empty, expected a name");
  if (path.front() == '/') {
    return Status::Invalid("store path \"" + std::string(path) +
                           "\": absolute, expected a path below the root");
  }
  size_t start = 0;
  while (start <= path.size()) {
    const size_t slash = path.find('/', start);
    const std::string_view part =
        path.substr(start, slash == std::string_view::npos ? path.npos : slash - start);
    if (part.empty() || part == "." || part == ".." || part.size() > 255) {
      return Status::Invalid("store path \"" + std::string(path) +
                             "\": expected '/'-separated names, none empty, \".\", \"..\" or over 255 bytes");
    }
    if (part.find('\0') != std::string_view::npos) {
      return Status::Invalid("store path: a NUL byte in \"" + std::string(part) + "\"");
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return Status::Ok();
}

std::string join_store_path(std::string_view folder, std::string_view name) {
  if (folder.empty()) return std::string(name);
  if (name.empty()) return std::string(folder);
  std::string out(folder);
  out += '/';
  out += name;
  return out;
}

}  // namespace iofab
