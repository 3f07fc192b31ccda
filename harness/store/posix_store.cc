#include "harness/store/posix_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "harness/core/input_file.h"
#include "harness/fs/run_dir.h"
#include "harness/store/store_folder.h"

namespace iofab {
namespace {

// A descriptor closed when it goes out of scope.
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

// Opens path below root without following a symlink or leaving root at any component.
int open_beneath(int root, const std::string& path, int flags, mode_t mode) {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
  how.mode = (flags & O_CREAT) != 0 ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  for (;;) {
    const long fd = syscall(SYS_openat2, root, path.c_str(), &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    if (errno == EINTR || errno == EAGAIN) continue;  // EAGAIN: a rename raced the lookup
    if (errno != ENOSYS) return -1;
    break;
  }
  // Before Linux 5.6: one component at a time, never following a symlink (check_store_path already
  // refused "..", ".", empty names and absolute paths).
  int dir = root;
  Fd held;
  size_t start = 0;
  for (;;) {
    const size_t slash = path.find('/', start);
    const std::string part =
        path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (slash == std::string::npos) return openat(dir, part.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
    const int next = openat(dir, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) return -1;
    if (held.fd >= 0) close(held.fd);
    held.fd = next;
    dir = next;
    start = slash + 1;
  }
}

EntryInfo entry_info(const struct stat& st) {
  EntryInfo info;
  info.kind = S_ISREG(st.st_mode)   ? EntryKind::kFile
              : S_ISDIR(st.st_mode) ? EntryKind::kFolder
                                    : EntryKind::kOther;
  info.size = S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0;
  info.modified_unix_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  return info;
}

// The sorted names in the folder open on fd (taken: closed here); shown names it in errors.
Status list_folder(int fd, const std::string& shown, std::vector<std::string>* names) {
  names->clear();
  if (fd < 0) return Status::FromErrno("list " + shown, errno);
  DIR* d = fdopendir(fd);
  if (d == nullptr) {
    const int e = errno;
    close(fd);
    return Status::FromErrno("list " + shown, e);
  }
  // A descriptor may share its read position with another (a dup of a store's root): start at the top.
  rewinddir(d);
  errno = 0;
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names->push_back(n);
  }
  const int e = errno;
  closedir(d);
  if (e != 0) return Status::FromErrno("list " + shown, e);
  std::sort(names->begin(), names->end());
  return Status::Ok();
}

// A flock held on the descriptor's open file description: closing the descriptor (and every duplicate)
// releases it, as does the holder's death.
class PosixLock final : public StoreLock {
 public:
  PosixLock(int fd, bool created) : fd_(fd), created_(created) {}
  ~PosixLock() override {
    if (fd_ >= 0) close(fd_);
  }
  bool created() const override { return created_; }

 private:
  int fd_;  // -1: a read-only filesystem without the lock's file, nothing to hold
  bool created_;
};

// A folder of the POSIX store held by its descriptor: each call is one *at() system call on it.
class PosixFolder final : public StoreFolder {
 public:
  PosixFolder(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~PosixFolder() override { close(fd_); }

  const std::string& path() const override { return path_; }

  Status create(std::string_view name, const OpenOptions& opts, StoreFile* out) override {
    if (Status s = check_folder_name(name); !s.ok()) return s;
    const std::string n(name);
    const int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | (opts.direct ? O_DIRECT : 0);
    const int fd = openat(fd_, n.c_str(), flags, 0644);
    if (fd < 0) return Status::FromErrno("open " + shown(n), errno);
    *out = StoreFile(fd, join_store_path(path_, n));
    return Status::Ok();
  }

  Status open(std::string_view name, const OpenOptions& opts, StoreFile* out) override {
    if (Status s = check_folder_name(name); !s.ok()) return s;
    int fd = -1;
    const std::string n(name);
    Status s = open_regular_file_at(fd_, n, O_NOFOLLOW | (opts.direct ? O_DIRECT : 0), &fd);
    if (!s.ok()) return Status::FromCode(s.code(), "open " + shown(s.message()));
    *out = StoreFile(fd, join_store_path(path_, n));
    return Status::Ok();
  }

  Status stat(std::string_view name, EntryInfo* info) override {
    *info = {};
    if (Status s = check_folder_name(name); !s.ok()) return s;
    const std::string n(name);
    struct stat st {};
    if (fstatat(fd_, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return errno == ENOENT ? Status::Ok() : Status::FromErrno("stat " + shown(n), errno);
    }
    *info = entry_info(st);
    return Status::Ok();
  }

  Status remove(std::string_view name) override {
    if (Status s = check_folder_name(name); !s.ok()) return s;
    const std::string n(name);
    if (unlinkat(fd_, n.c_str(), 0) == 0 || errno == ENOENT) return Status::Ok();
    if (errno == EISDIR && (unlinkat(fd_, n.c_str(), AT_REMOVEDIR) == 0 || errno == ENOENT)) return Status::Ok();
    return Status::FromErrno("remove " + shown(n), errno);
  }

  Status make_folder(std::string_view name) override {
    if (Status s = check_folder_name(name); !s.ok()) return s;
    const std::string n(name);
    if (mkdirat(fd_, n.c_str(), 0755) == 0) return Status::Ok();
    const int e = errno;
    // One that exists already is fine, as Store::make_folder; only then is the second call paid.
    struct stat st {};
    if (e == EEXIST && fstatat(fd_, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
      return Status::Ok();
    }
    return Status::FromErrno("mkdir " + shown(n), e);
  }

  Status rename(std::string_view from, std::string_view to) override {
    if (Status s = check_folder_name(from); !s.ok()) return s;
    if (Status s = check_folder_name(to); !s.ok()) return s;
    const std::string f(from), t(to);
    if (renameat(fd_, f.c_str(), fd_, t.c_str()) != 0) {
      return Status::FromErrno("rename " + shown(f) + " to " + shown(t), errno);
    }
    return Status::Ok();
  }

  Status list(std::vector<std::string>* names) override {
    // A descriptor of its own: readdir moves the read position, and the held one serves other threads.
    return list_folder(openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), shown(""), names);
  }

 private:
  std::string shown(const std::string& name) const {
    return name.empty() ? (path_.empty() ? "." : path_) : join_store_path(path_, name);
  }

  int fd_;
  std::string path_;
};

class PosixStore final : public Store {
 public:
  PosixStore(int root_fd, std::string location) : root_(root_fd), location_(std::move(location)) {}
  ~PosixStore() override { close(root_); }

  std::string_view name() const override { return "posix"; }
  StoreCaps caps() const override { return {}; }
  const std::string& location() const override { return location_; }

  Status make_folder(std::string_view path) override {
    std::string leaf;
    Fd parent;
    if (Status s = open_parent(path, "mkdir", &parent, &leaf); !s.ok()) return s;
    if (mkdirat(parent.fd, leaf.c_str(), 0755) != 0 && errno != EEXIST) {
      return Status::FromErrno("mkdir " + std::string(path), errno);
    }
    struct stat st {};
    if (fstatat(parent.fd, leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) {
      return Status::IoError("mkdir " + std::string(path) + ": exists and is not a folder");
    }
    return Status::Ok();
  }

  Status create(std::string_view path, const OpenOptions& opts, StoreFile* out) override {
    if (Status s = check_store_path(path); !s.ok()) return s;
    const std::string p(path);
    const int fd = open_beneath(root_, p, O_RDWR | O_CREAT | O_EXCL | (opts.direct ? O_DIRECT : 0), 0644);
    if (fd < 0) return Status::FromErrno("open " + p, errno);
    *out = StoreFile(fd, p);
    return Status::Ok();
  }

  Status open(std::string_view path, const OpenOptions& opts, StoreFile* out) override {
    std::string leaf;
    Fd parent;
    if (Status s = open_parent(path, "open", &parent, &leaf); !s.ok()) return s;
    int fd = -1;
    Status s = open_regular_file_at(parent.fd, leaf, O_NOFOLLOW | (opts.direct ? O_DIRECT : 0), &fd);
    if (!s.ok()) return Status::FromCode(s.code(), "open " + with_folder(path, s.message()));
    *out = StoreFile(fd, std::string(path));
    return Status::Ok();
  }

  Status commit(std::string_view from, std::string_view to) override {
    std::string from_leaf, to_leaf;
    Fd from_parent, to_parent;
    if (Status s = open_parent(from, "rename", &from_parent, &from_leaf); !s.ok()) return s;
    if (Status s = open_parent(to, "rename", &to_parent, &to_leaf); !s.ok()) return s;
    if (renameat(from_parent.fd, from_leaf.c_str(), to_parent.fd, to_leaf.c_str()) != 0) {
      return Status::FromErrno("rename " + std::string(from) + " to " + std::string(to), errno);
    }
    return Status::Ok();
  }

  Status sync(const StoreFile& file) override {
    if (fsync(file.fd()) != 0) return Status::FromErrno("fsync " + file.path(), errno);
    return Status::Ok();
  }

  Status sync_folder(std::string_view path) override {
    Fd dir;
    if (Status s = open_folder_fd(path, &dir); !s.ok()) return s;
    if (fsync(dir.fd) != 0) return Status::FromErrno("fsync folder " + shown(path), errno);
    return Status::Ok();
  }

  Status list(std::string_view path, std::vector<std::string>* names) override {
    names->clear();
    Fd dir;
    if (Status s = open_folder_fd(path, &dir); !s.ok()) return s;
    const int fd = dir.fd;
    dir.fd = -1;  // list_folder closes it
    return list_folder(fd, shown(path), names);
  }

  Status stat(std::string_view path, EntryInfo* info) override {
    *info = {};
    std::string leaf;
    Fd parent;
    bool missing = false;
    Status s = open_parent(path, "stat", &parent, &leaf, &missing);
    if (!s.ok()) return missing ? Status::Ok() : s;
    struct stat st {};
    if (fstatat(parent.fd, leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return errno == ENOENT ? Status::Ok() : Status::FromErrno("stat " + std::string(path), errno);
    }
    *info = entry_info(st);
    return Status::Ok();
  }

  Status remove(std::string_view path) override {
    std::string leaf;
    Fd parent;
    bool missing = false;
    Status s = open_parent(path, "remove", &parent, &leaf, &missing);
    if (!s.ok()) return missing ? Status::Ok() : s;
    if (unlinkat(parent.fd, leaf.c_str(), 0) == 0 || errno == ENOENT) return Status::Ok();
    if (errno == EISDIR && (unlinkat(parent.fd, leaf.c_str(), AT_REMOVEDIR) == 0 || errno == ENOENT)) {
      return Status::Ok();
    }
    return Status::FromErrno("remove " + std::string(path), errno);
  }

  Status remove_tree(std::string_view path) override {
    std::string leaf;
    Fd parent;
    bool missing = false;
    Status s = open_parent(path, "remove", &parent, &leaf, &missing);
    if (!s.ok()) return missing ? Status::Ok() : s;
    return remove_tree_at(parent.fd, leaf);
  }

  Status free_space(uint64_t* bytes) override {
    struct statvfs sv {};
    if (fstatvfs(root_, &sv) != 0) return Status::FromErrno("statvfs " + location_, errno);
    *bytes = static_cast<uint64_t>(sv.f_bavail) * sv.f_frsize;
    return Status::Ok();
  }

  Status lock(std::string_view path, std::unique_ptr<StoreLock>* out) override {
    if (Status s = check_store_path(path); !s.ok()) return s;
    const std::string p(path);
    const std::string shown_path = location_ + "/" + p;
    bool created = false;
    int fd = open_beneath(root_, p, O_RDWR, 0);
    if (fd < 0 && errno == ENOENT) {
      fd = open_beneath(root_, p, O_RDWR | O_CREAT | O_EXCL, 0644);
      created = fd >= 0;
      // Another holder made it first: lock theirs.
      if (fd < 0 && errno == EEXIST) fd = open_beneath(root_, p, O_RDWR, 0);
    }
    if (fd < 0 && errno == EROFS) return lock_read_only(p, shown_path, out);
    if (fd < 0) return Status::FromErrno("open " + shown_path, errno);
    int rc;
    while ((rc = flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {
    }
    if (rc != 0) {
      const int e = errno;
      close(fd);
      if (e == EWOULDBLOCK) return Status::Invalid(shown_path + " is locked by another holder");
      if (e == ENOSYS || e == EOPNOTSUPP || e == ENOLCK) {
        // A lock that holds nothing leaves nothing; should the removal fail, the flock error is the one
        // the caller must see.
        if (created) remove(path).ignore_error();
        return Status::Unavailable("lock " + shown_path + ": this filesystem does not support flock");
      }
      return Status::FromErrno("lock " + shown_path, e);
    }
    *out = std::make_unique<PosixLock>(fd, created);
    return Status::Ok();
  }

  // lock() on a read-only filesystem: what it guards cannot change here, so readers share it; a writer
  // elsewhere (the same filesystem mounted writable on another host) holds it alone and keeps them out.
  Status lock_read_only(const std::string& p, const std::string& shown_path,
                        std::unique_ptr<StoreLock>* out) {
    const int fd = open_beneath(root_, p, O_RDONLY, 0);
    if (fd < 0 && errno == ENOENT) {
      *out = std::make_unique<PosixLock>(-1, false);
      return Status::Ok();
    }
    if (fd < 0) return Status::FromErrno("open " + shown_path, errno);
    int rc;
    while ((rc = flock(fd, LOCK_SH | LOCK_NB)) != 0 && errno == EINTR) {
    }
    if (rc != 0 && errno == EWOULDBLOCK) {
      close(fd);
      return Status::Invalid(shown_path + " is locked by another holder");
    }
    // No flock there (ENOSYS, ENOLCK): nothing can write through this mount anyway.
    *out = std::make_unique<PosixLock>(rc == 0 ? fd : -1, false);
    if (rc != 0) close(fd);
    return Status::Ok();
  }

  Status open_folder(std::string_view path, std::unique_ptr<StoreFolder>* out) override {
    Fd dir;
    if (Status s = open_folder_fd(path, &dir); !s.ok()) return s;
    *out = std::make_unique<PosixFolder>(dir.fd, std::string(path));
    dir.fd = -1;  // the folder owns it
    return Status::Ok();
  }

  Status sync_all() override {
    if (syncfs(root_) != 0) return Status::FromErrno("syncfs " + location_, errno);
    return Status::Ok();
  }

 private:
  static std::string shown(std::string_view path) { return path.empty() ? "." : std::string(path); }
  // "NAME: <why>" from open_regular_file_at names the leaf only; say the whole path.
  static std::string with_folder(std::string_view path, const std::string& message) {
    const auto slash = path.rfind('/');
    return slash == std::string_view::npos ? message : std::string(path.substr(0, slash + 1)) + message;
  }

  Status open_folder_fd(std::string_view path, Fd* out) {
    if (Status s = check_store_path(path, true); !s.ok()) return s;
    // The root afresh, never a dup: a dup shares the root's read position, and a second list() would
    // start where the first one's readdir ended (at the end: no names).
    out->fd = path.empty() ? openat(root_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                           : open_beneath(root_, std::string(path), O_RDONLY | O_DIRECTORY, 0);
    if (out->fd < 0) return Status::FromErrno("open folder " + shown(path), errno);
    return Status::Ok();
  }

  // The folder holding path, and path's last name. *missing (optional): the parent does not exist,
  // which for stat and remove means path does not either.
  Status open_parent(std::string_view path, const char* what, Fd* parent, std::string* leaf,
                     bool* missing = nullptr) {
    if (Status s = check_store_path(path); !s.ok()) return s;
    const auto slash = path.rfind('/');
    *leaf = std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
    if (slash == std::string_view::npos) {
      parent->fd = dup(root_);
    } else {
      parent->fd = open_beneath(root_, std::string(path.substr(0, slash)), O_RDONLY | O_DIRECTORY, 0);
    }
    if (parent->fd < 0) {
      const int e = errno;
      if (missing != nullptr) *missing = e == ENOENT;
      return Status::FromErrno(std::string(what) + " " + std::string(path), e);
    }
    return Status::Ok();
  }

  int root_;
  std::string location_;
};

}  // namespace

Status posix_store_at(int root_fd, const std::string& location, std::unique_ptr<Store>* out) {
  const int fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return Status::FromErrno("store " + location, errno);
  out->reset(new PosixStore(fd, location));
  return Status::Ok();
}

Status open_posix_store(const std::string& path, bool create, std::unique_ptr<Store>* out) {
  if (create && mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
    return Status::FromErrno("mkdir " + path, errno);
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno("open folder " + path, errno);
  out->reset(new PosixStore(fd, path));
  return Status::Ok();
}

}  // namespace iofab
