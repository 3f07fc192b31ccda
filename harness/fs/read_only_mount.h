// Whether a folder's filesystem is mounted read-only: a dataset_dir there is read as it is (its lock
// taken shared) and nothing can be generated into it.
#pragma once

#include <string>

namespace iofab {

// statvfs's ST_RDONLY for path; false when path cannot be asked.
bool on_read_only_mount(const std::string& path);

}  // namespace iofab
