// What a path names on this host, for the checks a suite makes on a folder param before anything is
// written (cache_dir, local_dir, dataset_dir's parent). Phases ask here, never the POSIX namespace or
// std::filesystem themselves (cmake/CheckLayers.cmake).
#pragma once

#include <string>

namespace iofab {

enum class PathKind {
  kMissing,  // nothing there, or nothing this process may look at
  kFolder,
  kDevice,  // a block or character device
  kOther,   // a file, a socket, ...
};

// Follows symbolic links, as opening the path would.
PathKind path_kind(const std::string& path);

// Whether a and b are one file or folder on disk (false when either cannot be looked at).
bool same_file(const std::string& a, const std::string& b);

// Whether a and b name one folder: the same once "." and ".." are taken out, or the same on disk.
bool same_folder(const std::string& a, const std::string& b);

// "/a/b/c" -> "/a/b"; "c" -> "".
std::string parent_path(const std::string& path);

}  // namespace iofab
