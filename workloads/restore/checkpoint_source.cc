#include "workloads/restore/checkpoint_source.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "harness/core/input_file.h"
#include "harness/fs/run_dir.h"
#include "harness/fs/target.h"
#include "workloads/checkpoint/folder_layout.h"
#include "workloads/checkpoint/phase_folder.h"

namespace iofab {
namespace {

// A manifest lists one line per shard; 64 MiB holds hundreds of thousands.
constexpr uint64_t kMaxManifestBytes = 64ULL << 20;

int open_dir(int parent, const std::string& name) {
  return openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

// The newest committed step under a checkpoint phase's folder fd.
Status newest_step(int dirfd, const std::string& where, uint64_t* step) {
  StepListing steps;
  Status s = list_steps_at(dirfd, &steps);
  if (!s.ok()) return Status::IoError(where + ": " + s.message());
  if (steps.committed.empty()) {
    return Status::IoError(
        where + " holds no committed checkpoint (no step-N/ folder" +
        (steps.tmp.empty() ? "" : "; only " + steps.tmp.back() + ", which never committed") + ")");
  }
  *step = steps.committed.back();
  return Status::Ok();
}

// The manifest of the newest step under a checkpoint phase's folder pfd; *dir becomes prefix/step-N.
Status read_newest_step(int pfd, const std::string& where, const std::string& prefix, std::string* dir,
                        Manifest* m) {
  uint64_t step = 0;
  Status s = newest_step(pfd, where, &step);
  if (!s.ok()) return s;
  *dir = prefix + "/" + step_dir_name(step);
  const int sfd = open_dir(pfd, step_dir_name(step));
  s = sfd < 0 ? Status::FromErrno("open " + *dir, errno) : read_manifest_at(sfd, *dir, m);
  if (sfd >= 0) close(sfd);
  return s;
}

// `from`: a step-N/ folder, or a checkpoint phase's folder (its newest step).
Status find_from(const std::string& from, std::string* dir, Manifest* m) {
  const int fd = open(from.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno("from: cannot open " + from, errno);
  Status s = read_manifest_at(fd, from, m);
  *dir = from;
  if (!s.ok() && faccessat(fd, std::string(kManifestName).c_str(), F_OK, AT_SYMLINK_NOFOLLOW) != 0) {
    // A checkpoint phase's folder: take its newest step.
    s = read_newest_step(fd, "from: " + from, from, dir, m);
  }
  close(fd);
  return s;
}

// When the newest step of checkpoint phase folder pfd (named n) committed, in
// ns: the manifest's commit time, else its mtime; false when it has no step.
bool commit_time(int pfd, const std::string& n, int64_t* t) {
  uint64_t step = 0;
  if (!newest_step(pfd, n, &step).ok()) return false;
  struct stat st {};
  const std::string step_name = step_dir_name(step);
  const std::string manifest = step_name + "/" + std::string(kManifestName);
  if (fstatat(pfd, manifest.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 &&
      fstatat(pfd, step_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return false;
  }
  *t = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  // The commit time in the manifest is finer than a filesystem's mtime, when it can be read.
  const int sfd = open_dir(pfd, step_name);
  Manifest cand;
  if (sfd >= 0 && read_manifest_at(sfd, n, &cand).ok() && cand.committed_unix_ns > 0) {
    *t = static_cast<int64_t>(cand.committed_unix_ns);
  }
  if (sfd >= 0) close(sfd);
  return true;
}

// The nearest earlier checkpoint phase is the one that committed last (by the manifest's commit time,
// else its mtime). A broken manifest still counts, so that its error shows.
Status latest_checkpoint_phase(const PhaseContext& ctx, std::string* phase) {
  int64_t newest = -1;
  // A fresh open of the folder: a dup() would share, and move, the run folder fd's read position.
  const int lfd = openat(ctx.run_dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* d = lfd < 0 ? nullptr : fdopendir(lfd);
  if (d == nullptr) {
    Status e = Status::FromErrno("open run folder", errno);
    if (lfd >= 0) close(lfd);
    return e;
  }
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string n(e->d_name);
    if (n != "." && n != ".." && n != ctx.phase_name) names.push_back(n);
  }
  closedir(d);
  for (const auto& n : names) {
    const int pfd = open_dir(ctx.run_dir_fd, n);
    if (pfd < 0) continue;
    int64_t t = 0;
    if (commit_time(pfd, n, &t) && t >= newest) {
      newest = t;
      *phase = n;
    }
    close(pfd);
  }
  if (phase->empty()) {
    return Status::IoError(
        "no checkpoint to restore: no earlier checkpoint phase of this run left a committed step-N/ "
        "(put a checkpoint phase before this one, name it with `checkpoint`, or give `from`)");
  }
  return Status::Ok();
}

// The newest step of checkpoint phase `phase` of this run.
Status find_in_run(const PhaseContext& ctx, const std::string& phase, std::string* dir, Manifest* m) {
  const int pfd = open_dir(ctx.run_dir_fd, phase);
  if (pfd < 0) {
    return Status::IoError("checkpoint: no folder for phase \"" + phase + "\" in this run (" +
                           Status::FromErrno("open", errno).message() +
                           "): is it a checkpoint phase that runs before " + ctx.phase_name + "?");
  }
  Status s = read_newest_step(pfd, "checkpoint phase \"" + phase + "\"", phase, dir, m);
  close(pfd);
  return s;
}

}  // namespace

Source find_checkpoint(const RestoreParams& p, const PhaseContext& ctx) {
  Source src;
  Manifest m;
  Status s;
  if (!p.from.empty()) {
    src.external = true;
    s = find_from(p.from, &src.dir, &m);
  } else {
    std::string phase = p.checkpoint;
    if (phase.empty()) s = latest_checkpoint_phase(ctx, &phase);
    if (s.ok()) s = find_in_run(ctx, phase, &src.dir, &m);
  }
  if (!s.ok()) {
    src.error = s.message();
    return src;
  }
  src.manifest = manifest_to_json_text(m);
  return src;
}

Status read_manifest_at(int dirfd, std::string_view where, Manifest* m) {
  // Non-blocking and bounded: a FIFO or a huge file named manifest.json must not hang a restore.
  std::string text;
  Status s = read_input_file_at(dirfd, kManifestName, kMaxManifestBytes, O_NOFOLLOW, &text);
  if (!s.ok()) {
    return Status::IoError(std::string(where) + ": no readable " + std::string(kManifestName) + " (" +
                           s.message() + "): not a committed checkpoint");
  }
  s = parse_manifest(text, m);
  if (!s.ok()) return Status::IoError(std::string(where) + "/" + s.message());
  return Status::Ok();
}

Status open_step_folder(int run_dir_fd, bool external, const std::string& dir, int* fd) {
  int step_fd = -1;
  if (external) {
    step_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  } else {
    const auto slash = dir.find('/');
    const int pfd = open_dir(run_dir_fd, dir.substr(0, slash));
    step_fd = pfd < 0 ? -1 : open_dir(pfd, dir.substr(slash + 1));
    if (pfd >= 0) close(pfd);
  }
  *fd = step_fd;
  if (step_fd < 0) return Status::FromErrno("open checkpoint " + dir, errno);
  return Status::Ok();
}

void close_step_folder(int fd) {
  if (fd >= 0) close(fd);
}

std::string block_device_of(const std::string& dir) {
  TargetInfo info;
  return describe_target(dir, &info).ok() ? info.block_device : "";
}

Status open_shard(int step_fd, const std::string& name, bool direct, int* fd) {
  return open_file_at(step_fd, name, O_RDONLY | (direct ? O_DIRECT : 0), fd);
}

bool shard_file_size(int fd, uint64_t* size) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  *size = static_cast<uint64_t>(st.st_size);
  return true;
}

}  // namespace iofab
