#include "harness/fs/target.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

namespace iofab {
namespace {

// mountinfo escapes spaces and such as \040 octal.
std::string unescape_mount(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      int v = 0;
      bool ok = true;
      for (size_t k = 1; k <= 3; ++k) {
        char c = s[i + k];
        if (c < '0' || c > '7') ok = false;
        v = v * 8 + (c - '0');
      }
      if (ok) {
        out.push_back(static_cast<char>(v));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

// The block device name for dev_t, as /sys/dev/block knows it (partition or whole disk).
std::string block_name_for(dev_t dev) {
  std::string link = "/sys/dev/block/" + std::to_string(major(dev)) + ":" + std::to_string(minor(dev));
  char buf[PATH_MAX];
  ssize_t n = readlink(link.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string target(buf, static_cast<size_t>(n));
  auto slash = target.rfind('/');
  return slash == std::string::npos ? target : target.substr(slash + 1);
}

// The block device a mount source names ("/dev/loop3", "/dev/mapper/vg-lv"): how btrfs is found, whose
// st_dev is an anonymous device that /sys/dev/block does not know.
std::string block_name_of_source(const std::string& source) {
  if (source.empty() || source[0] != '/') return "";
  struct stat st {};
  if (stat(source.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return "";
  return block_name_for(st.st_rdev);
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

std::string access_for_fs_type(const std::string& t) {
  // fuseblk is a FUSE filesystem on a block device (ntfs-3g): the daemon's caches are not excluded either.
  if (t == "fuse" || t == "fuseblk" || starts_with(t, "fuse.")) return "fuse";
  static const char* const kNetwork[] = {"nfs",  "nfs4",     "cifs",      "smb3",   "smbfs",  "lustre",
                                         "gpfs", "ceph",     "glusterfs", "beegfs", "wekafs", "afs",
                                         "9p",   "orangefs", "pvfs2",     "ocfs2",  "gfs2"};
  for (const char* n : kNetwork) {
    if (t == n) return "network";
  }
  if (t == "tmpfs" || t == "ramfs" || t == "hugetlbfs") return "memory";
  return "other";
}

Status describe_target(const std::string& path, TargetInfo* info) {
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) == nullptr) return Status::FromErrno("target " + path, errno);
  info->path = resolved;
  struct statvfs vfs {};
  if (statvfs(resolved, &vfs) != 0) return Status::FromErrno("statvfs " + info->path, errno);
  info->free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  info->total_bytes = static_cast<uint64_t>(vfs.f_blocks) * vfs.f_frsize;
  info->read_only = (vfs.f_flag & ST_RDONLY) != 0;

  struct stat st {};
  if (stat(resolved, &st) == 0) info->block_device = block_name_for(st.st_dev);

  // The longest mount point that prefixes the path is the one holding it.
  std::ifstream mi("/proc/self/mountinfo");
  std::string line;
  size_t best = 0;
  while (std::getline(mi, line)) {
    std::istringstream ls(line);
    std::vector<std::string> f;
    std::string tok;
    while (ls >> tok) f.push_back(tok);
    size_t dash = 0;
    for (size_t i = 6; i < f.size(); ++i) {
      if (f[i] == "-") {
        dash = i;
        break;
      }
    }
    if (f.size() < 10 || dash == 0 || dash + 2 >= f.size()) continue;
    std::string mp = unescape_mount(f[4]);
    bool prefix = info->path == mp || mp == "/" ||
                  (info->path.compare(0, mp.size(), mp) == 0 && info->path.size() > mp.size() &&
                   info->path[mp.size()] == '/');
    if (prefix && mp.size() >= best) {
      best = mp.size();
      info->mount_point = mp;
      info->mount_options = f[5] + (dash + 3 < f.size() ? "," + f[dash + 3] : "");
      info->fs_type = f[dash + 1];
      info->device = unescape_mount(f[dash + 2]);
      info->mount_source = info->device;
    }
  }
  info->devices.clear();
  if (!info->block_device.empty()) info->devices.push_back(info->block_device);
  if (const std::string src = block_name_of_source(info->mount_source);
      !src.empty() && src != info->block_device) {
    info->devices.push_back(src);
  }
  if (info->block_device.empty() && !info->devices.empty()) info->block_device = info->devices[0];
  info->access =
      !info->devices.empty() && info->fs_type != "fuseblk" ? "block" : access_for_fs_type(info->fs_type);
  return Status::Ok();
}

Status check_target(const std::string& path, TargetInfo* info) {
  if (path.empty()) return Status::Invalid("target: expected a folder path, got an empty string");
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return Status::Invalid("target " + path + ": " + std::strerror(errno));
    // Only the last component may be missing: we never create a tree of folders by accident.
    std::string parent = path;
    while (parent.size() > 1 && parent.back() == '/') parent.pop_back();
    auto slash = parent.rfind('/');
    parent = slash == std::string::npos ? "." : (slash == 0 ? "/" : parent.substr(0, slash));
    struct stat pst {};
    if (stat(parent.c_str(), &pst) != 0 || !S_ISDIR(pst.st_mode)) {
      return Status::Invalid("target " + path + ": parent folder " + parent +
                             " does not exist; expected an existing folder or a new folder in one");
    }
    if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
      return Status::Invalid("target " + path + ": cannot create folder: " + std::strerror(errno));
    }
    if (stat(path.c_str(), &st) != 0) return Status::Invalid("target " + path + ": " + std::strerror(errno));
  }
  if (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode)) {
    return Status::Invalid("target " + path + ": is a " + (S_ISBLK(st.st_mode) ? "block" : "character") +
                           " device; iofab writes files under a folder and never to a raw device");
  }
  if (!S_ISDIR(st.st_mode)) {
    return Status::Invalid("target " + path +
                           ": is not a folder; expected a folder to create the run folder in");
  }
  Status s = describe_target(path, info);
  if (!s.ok()) return Status::Invalid(s.message());
  if (info->read_only) return Status::Invalid("target " + path + ": the filesystem is mounted read-only");
  if (access(info->path.c_str(), W_OK | X_OK) != 0) {
    return Status::Invalid("target " + path + ": not writable: " + std::strerror(errno));
  }
  return Status::Ok();
}

nlohmann::json to_json(const TargetInfo& info) {
  nlohmann::json j = {{"path", info.path},
                      {"fs_type", info.fs_type},
                      {"mount_point", info.mount_point},
                      {"mount_options", info.mount_options},
                      {"device", info.device},
                      {"mount_source", info.mount_source},
                      {"block_device", info.block_device},
                      {"devices", info.devices},
                      {"access", info.access},
                      {"free_bytes", info.free_bytes},
                      {"total_bytes", info.total_bytes}};
  if (!info.endpoint_source.empty()) j["endpoint_source"] = info.endpoint_source;
  return j;
}

}  // namespace iofab
