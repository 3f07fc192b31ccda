#include "harness/engines/cufile_handles.h"

#include <sys/stat.h>

namespace iofab {

cufile_abi::Error CufileHandles::acquire(int fd, cufile_abi::Handle* handle) {
  struct stat st {};
  const bool known = fstat(fd, &st) == 0;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_fd_.find(fd);
  if (it != by_fd_.end() && known && (it->second.dev != st.st_dev || it->second.ino != st.st_ino)) {
    // The number was closed and reused without a release: that registration is stale.
    deregister_(it->second.handle);
    by_fd_.erase(it);
    it = by_fd_.end();
  }
  if (it != by_fd_.end()) {
    ++it->second.refs;
    *handle = it->second.handle;
    return cufile_abi::Error{.err = cufile_abi::kSuccess, .cu_err = 0};
  }
  cufile_abi::Handle h = nullptr;
  const cufile_abi::Error e = register_(fd, &h);
  if (e.err != cufile_abi::kSuccess) return e;
  by_fd_[fd] = Entry{.handle = h, .dev = known ? st.st_dev : 0, .ino = known ? st.st_ino : 0, .refs = 1};
  *handle = h;
  return e;
}

void CufileHandles::release(int fd, cufile_abi::Handle handle) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = by_fd_.find(fd);
  // A handle replaced since (the fd was reused) was deregistered when it was replaced.
  if (it == by_fd_.end() || it->second.handle != handle) return;
  if (--it->second.refs > 0) return;
  deregister_(it->second.handle);
  by_fd_.erase(it);
}

int CufileHandles::holders(int fd) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = by_fd_.find(fd);
  return it == by_fd_.end() ? 0 : it->second.refs;
}

}  // namespace iofab
