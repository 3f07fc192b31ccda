#include "harness/fs/path_kind.h"

#include <sys/stat.h>

#include <filesystem>

namespace iofab {

PathKind path_kind(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return PathKind::kMissing;
  if (S_ISDIR(st.st_mode)) return PathKind::kFolder;
  if (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode)) return PathKind::kDevice;
  return PathKind::kOther;
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec);
}

bool same_folder(const std::string& a, const std::string& b) {
  return std::filesystem::path(a).lexically_normal() == std::filesystem::path(b).lexically_normal() ||
         same_file(a, b);
}

std::string parent_path(const std::string& path) {
  return std::filesystem::path(path).parent_path().string();
}

}  // namespace iofab
