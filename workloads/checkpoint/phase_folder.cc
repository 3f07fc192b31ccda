#include "workloads/checkpoint/phase_folder.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "harness/fs/run_dir.h"
#include "workloads/checkpoint/folder_layout.h"

namespace iofab {

Status open_phase_folder(int run_dir_fd, const std::string& phase_name, int* fd) {
  return make_dir_at(run_dir_fd, phase_name, fd);
}

void close_phase_folder(int fd) {
  if (fd >= 0) close(fd);
}

Status list_steps_at(int dirfd, StepListing* out) {
  out->committed.clear();
  out->tmp.clear();
  const int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno("open checkpoint folder", errno);
  DIR* d = fdopendir(fd);
  if (d == nullptr) {
    const int e = errno;
    close(fd);
    return Status::FromErrno("opendir checkpoint folder", e);
  }
  while (dirent* e = readdir(d)) {
    std::string_view name(e->d_name);
    struct stat st {};
    if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) continue;
    if (auto n = parse_step_dir_name(name)) {
      out->committed.push_back(*n);
    } else if (name.ends_with(".tmp") && parse_step_dir_name(name.substr(0, name.size() - 4))) {
      out->tmp.emplace_back(name);
    }
  }
  closedir(d);
  std::sort(out->committed.begin(), out->committed.end());
  std::sort(out->tmp.begin(), out->tmp.end());
  return Status::Ok();
}

Status remove_stale_steps(int phase_fd, uint64_t* removed, uint64_t* newest) {
  *removed = 0;
  *newest = 0;
  StepListing steps;
  Status st = list_steps_at(phase_fd, &steps);
  if (!st.ok()) return st;
  for (const auto& t : steps.tmp) {
    Status rm = remove_tree_at(phase_fd, t);
    if (!rm.ok()) st = rm;
    ++*removed;
  }
  if (!steps.committed.empty()) *newest = steps.committed.back();
  return st;
}

void remove_uncommitted_steps(int phase_fd) {
  StepListing steps;
  if (list_steps_at(phase_fd, &steps).ok()) {
    // Best effort: restore reads committed steps only, so a step-N.tmp/ that stays is never read,
    // and the next run's checkpoint phase tries again.
    for (const auto& t : steps.tmp) remove_tree_at(phase_fd, t).ignore_error();
  }
}

Status create_shard_file(int phase_fd, uint64_t step, const std::string& name, bool direct, int* fd) {
  int dir_fd = -1;
  Status s = make_dir_at(phase_fd, step_tmp_name(step), &dir_fd);
  if (!s.ok()) return s;
  s = open_file_at(dir_fd, name, O_WRONLY | (direct ? O_DIRECT : 0), fd);
  close(dir_fd);
  if (!s.ok() && direct && s.message().find("Invalid argument") != std::string::npos) {
    return Status::IoError(s.message() + " (this filesystem does not support O_DIRECT; set direct: false)");
  }
  return s;
}

Status write_manifest_at(int dirfd, const Manifest& m) {
  const std::string text = manifest_to_json_text(m);
  int fd = -1;
  Status s = open_file_at(dirfd, kManifestName, O_WRONLY, &fd);
  if (!s.ok()) return s;
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : ENOSPC;
      close(fd);
      return Status::FromErrno("write " + std::string(kManifestName), e);
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0) {
    const int e = errno;
    close(fd);
    return Status::FromErrno("fsync " + std::string(kManifestName), e);
  }
  if (close(fd) != 0) return Status::FromErrno("close " + std::string(kManifestName), errno);
  return Status::Ok();
}

Status commit_step_folder(int phase_fd, const std::string& phase_name, const Manifest& m) {
  const std::string tmp = step_tmp_name(m.step);
  const std::string dst = step_dir_name(m.step);
  const int tmp_fd = openat(phase_fd, tmp.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (tmp_fd < 0) return Status::FromErrno("open " + tmp, errno);
  Status s = write_manifest_at(tmp_fd, m);
  // The shards' and the manifest's names are durable before the rename publishes them.
  if (s.ok()) s = fsync_dir(tmp_fd, tmp);
  close(tmp_fd);
  if (!s.ok()) return s;
  if (renameat(phase_fd, tmp.c_str(), phase_fd, dst.c_str()) != 0) {
    return Status::FromErrno("rename " + tmp + " to " + dst, errno);
  }
  return fsync_dir(phase_fd, phase_name);
}

Status rotate_steps(int phase_fd, unsigned keep, uint64_t* deleted) {
  StepListing steps;
  Status s = list_steps_at(phase_fd, &steps);
  if (!s.ok()) return s;
  *deleted = 0;
  for (size_t i = 0; i + keep < steps.committed.size(); ++i) {
    s = remove_tree_at(phase_fd, step_dir_name(steps.committed[i]));
    if (!s.ok()) return s;
    ++*deleted;
  }
  return Status::Ok();
}

}  // namespace iofab
