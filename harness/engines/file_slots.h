// The files a synchronous or in-memory engine was given (Engine::add_file):
// one slot per fd, a freed slot reused first, so a file's index stays the
// same for as long as it is registered and the table never grows past the
// most files open at once.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.h"

namespace iofab {

class FileSlots {
 public:
  // engine names the engine in messages ("psync: add_file: bad fd -1").
  explicit FileSlots(std::string_view engine) : engine_(engine) {}

  Status add(int fd, int* index) {
    if (fd < 0) return Status::Invalid(engine_ + ": add_file: bad fd " + std::to_string(fd));
    for (size_t i = 0; i < fds_.size(); ++i) {
      if (fds_[i] < 0) {
        fds_[i] = fd;
        *index = static_cast<int>(i);
        return Status::Ok();
      }
    }
    fds_.push_back(fd);
    *index = static_cast<int>(fds_.size() - 1);
    return Status::Ok();
  }

  Status remove(int index) {
    if (fd(index) < 0) return Status::Invalid(engine_ + ": remove_file: no file " + std::to_string(index));
    fds_[static_cast<size_t>(index)] = -1;
    return Status::Ok();
  }

  // The fd at index; -1 when no file is there.
  int fd(int index) const {
    if (index < 0 || static_cast<size_t>(index) >= fds_.size()) return -1;
    return fds_[static_cast<size_t>(index)];
  }

 private:
  std::string engine_;
  std::vector<int> fds_;  // -1: a free slot
};

}  // namespace iofab
