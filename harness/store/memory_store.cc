#include "harness/store/memory_store.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <map>
#include <mutex>
#include <set>

namespace iofab {

// Every path present: folders with fd -1, files with their memfd (the store's own copy;
// handles get a dup, so a removed file's open handles still work, as on POSIX).
struct MemoryStore::State {
  std::mutex mu;
  uint64_t capacity;
  std::map<std::string, int> entries;
  std::map<std::string, int> faults;
  std::set<std::string> locked;
  uint64_t syncs = 0;
  // A folder has no memfd to carry its time: when it was made, in ns since the Unix epoch.
  std::map<std::string, int64_t> folder_times;

  // The errno armed for path by fail_next, once; 0 when none. Called with mu held.
  int take_fault(std::string_view path) {
    auto it = faults.find(std::string(path));
    if (it == faults.end()) return 0;
    const int e = it->second;
    faults.erase(it);
    return e;
  }
};

namespace {

std::string parent_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? "" : std::string(path.substr(0, slash));
}

int64_t unix_ns_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool below(const std::string& path, const std::string& folder) {
  return folder.empty() || (path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 &&
                            path[folder.size()] == '/');
}

}  // namespace

MemoryStore::MemoryStore(uint64_t capacity) : state_(new State) { state_->capacity = capacity; }

MemoryStore::~MemoryStore() {
  for (auto& [path, fd] : state_->entries) {
    if (fd >= 0) close(fd);
  }
}

StoreCaps MemoryStore::caps() const {
  StoreCaps c;
  c.direct_io = false;  // memfd has no O_DIRECT
  return c;
}

Status MemoryStore::make_folder(std::string_view path) {
  if (Status s = check_store_path(path); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(state_->mu);
  if (const int e = state_->take_fault(path); e != 0)
    return Status::FromErrno(std::string("mkdir") + " " + std::string(path), e);
  const std::string parent = parent_of(path);
  if (!parent.empty() && state_->entries.count(parent) == 0) {
    return Status::FromErrno("mkdir " + std::string(path), ENOENT);
  }
  auto it = state_->entries.find(std::string(path));
  if (it != state_->entries.end()) {
    return it->second < 0 ? Status::Ok()
                          : Status::IoError("mkdir " + std::string(path) + ": exists and is not a folder");
  }
  state_->entries[std::string(path)] = -1;
  state_->folder_times[std::string(path)] = unix_ns_now();
  return Status::Ok();
}

Status MemoryStore::create(std::string_view path, const OpenOptions& /*opts*/, StoreFile* out) {
  if (Status s = check_store_path(path); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(state_->mu);
  if (const int e = state_->take_fault(path); e != 0)
    return Status::FromErrno(std::string("open") + " " + std::string(path), e);
  const std::string p(path);
  const std::string parent = parent_of(path);
  if (!parent.empty()) {
    auto pit = state_->entries.find(parent);
    if (pit == state_->entries.end()) return Status::FromErrno("open " + p, ENOENT);
    if (pit->second >= 0) return Status::FromErrno("open " + p, ENOTDIR);
  }
  if (state_->entries.count(p) != 0) return Status::FromErrno("open " + p, EEXIST);
  const int fd = memfd_create(p.c_str(), MFD_CLOEXEC);
  if (fd < 0) return Status::FromErrno("memfd_create " + p, errno);
  const int handle = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (handle < 0) {
    const int e = errno;
    close(fd);
    return Status::FromErrno("dup " + p, e);
  }
  state_->entries[p] = fd;
  *out = StoreFile(handle, p);
  return Status::Ok();
}

Status MemoryStore::open(std::string_view path, const OpenOptions& /*opts*/, StoreFile* out) {
  if (Status s = check_store_path(path); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(state_->mu);
  if (const int e = state_->take_fault(path); e != 0)
    return Status::FromErrno(std::string("open") + " " + std::string(path), e);
  const std::string p(path);
  auto it = state_->entries.find(p);
  if (it == state_->entries.end()) return Status::FromErrno("open " + p, ENOENT);
  if (it->second < 0) return Status::Invalid("open " + p + ": a folder, expected a regular file");
  // A handle of its own, at offset 0 (dup would share the offset): reopen through /proc.
  const std::string proc = "/proc/self/fd/" + std::to_string(it->second);
  const int fd = ::open(proc.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno("open " + p, errno);
  *out = StoreFile(fd, p);
  return Status::Ok();
}

Status MemoryStore::commit(std::string_view from, std::string_view to) {
  if (Status s = check_store_path(from); !s.ok()) return s;
  if (Status s = check_store_path(to); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(state_->mu);
  if (const int e = state_->take_fault(from); e != 0)
    return Status::FromErrno(std::string("rename") + " " + std::string(from), e);
  const std::string f(from), t(to);
  auto it = state_->entries.find(f);
  if (it == state_->entries.end()) return Status::FromErrno("rename " + f + " to " + t, ENOENT);
  const std::string to_parent = parent_of(to);
  if (!to_parent.empty() && state_->entries.count(to_parent) == 0) {
    return Status::FromErrno("rename " + f + " to " + t, ENOENT);
  }
  auto dst = state_->entries.find(t);
  if (dst != state_->entries.end()) {
    const bool dst_folder = dst->second < 0;
    if (dst_folder) {
      for (const auto& [p, fd] : state_->entries) {
        if (below(p, t)) return Status::FromErrno("rename " + f + " to " + t, ENOTEMPTY);
      }
    } else {
      close(dst->second);
    }
    state_->entries.erase(dst);
  }
  // Move the entry and, for a folder, everything below it.
  std::map<std::string, int> moved;
  for (auto e = state_->entries.begin(); e != state_->entries.end();) {
    if (e->first == f || below(e->first, f)) {
      const std::string dst_path = t + e->first.substr(f.size());
      moved[dst_path] = e->second;
      if (auto ft = state_->folder_times.find(e->first); ft != state_->folder_times.end()) {
        const int64_t when = ft->second;
        state_->folder_times.erase(ft);
        state_->folder_times[dst_path] = when;
      }
      e = state_->entries.erase(e);
    } else {
      ++e;
    }
  }
  state_->entries.insert(moved.begin(), moved.end());
  return Status::Ok();
}

Status MemoryStore::sync(const StoreFile& file) {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (const int e = state_->take_fault(file.path()); e != 0)
    return Status::FromErrno(std::string("fsync") + " " + std::string(file.path()), e);
  ++state_->syncs;
  return Status::Ok();
}

Status MemoryStore::sync_folder(std::string_view path) {
  if (Status s = check_store_path(path, true); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(state_->mu);
  if (const int e = state_->take_fault(path); e != 0)
    return Status::FromErrno(std::string("fsync folder") + " " + std::string(path), e);
  if (!path.empty() && state_->entries.count(std::string(path)) == 0) {
    return Status::FromErrno("open folder " + std::string(path), ENOENT);
  }
  ++state_->syncs;
  return Status::Ok();
}

Status MemoryStore::list(std::string_view path, std::vector<std::string>* names) {
  names->clear();
  if (Status s = check_store_path(path, true); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(state_->mu);
  if (const int e = state_->take_fault(path); e != 0)
    return Status::FromErrno(std::string("list") + " " + std::string(path), e);
  const std::string folder(path);
  if (!folder.empty()) {
    auto it = state_->entries.find(folder);
    if (it == state_->entries.end()) return Status::FromErrno("open folder " + folder, ENOENT);
    if (it->second >= 0) return Status::FromErrno("open folder " + folder, ENOTDIR);
  }
  for (const auto& [p, fd] : state_->entries) {
    if (below(p, folder) && p.find('/', folder.empty() ? 0 : folder.size() + 1) == std::string::npos) {
      names->push_back(folder.empty() ? p : p.substr(folder.size() + 1));
    }
  }
  return Status::Ok();  // the map keeps them sorted
}

Status MemoryStore::stat(std::string_view path, EntryInfo* info) {
  *info = {};
  if (Status s = check_store_path(path); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(state_->mu);
  if (const int e = state_->take_fault(path); e != 0)
    return Status::FromErrno(std::string("stat") + " " + std::string(path), e);
  auto it = state_->entries.find(std::string(path));
  if (it == state_->entries.end()) return Status::Ok();
  if (it->second < 0) {
    info->kind = EntryKind::kFolder;
    info->modified_unix_ns = state_->folder_times[it->first];
    return Status::Ok();
  }
  struct stat st {};
  if (fstat(it->second, &st) != 0) return Status::FromErrno("stat " + std::string(path), errno);
  info->kind = EntryKind::kFile;
  info->size = static_cast<uint64_t>(st.st_size);
  info->modified_unix_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  return Status::Ok();
}

Status MemoryStore::remove(std::string_view path) {
  if (Status s = check_store_path(path); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(state_->mu);
  if (const int e = state_->take_fault(path); e != 0)
    return Status::FromErrno(std::string("remove") + " " + std::string(path), e);
  const std::string p(path);
  auto it = state_->entries.find(p);
  if (it == state_->entries.end()) return Status::Ok();
  for (const auto& [q, fd] : state_->entries) {
    if (below(q, p)) return Status::FromErrno("remove " + p, ENOTEMPTY);
  }
  if (it->second >= 0) close(it->second);
  state_->folder_times.erase(p);
  state_->entries.erase(it);
  return Status::Ok();
}

Status MemoryStore::remove_tree(std::string_view path) {
  if (Status s = check_store_path(path); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(state_->mu);
  if (const int e = state_->take_fault(path); e != 0)
    return Status::FromErrno(std::string("remove") + " " + std::string(path), e);
  const std::string p(path);
  for (auto e = state_->entries.begin(); e != state_->entries.end();) {
    if (e->first == p || below(e->first, p)) {
      if (e->second >= 0) close(e->second);
      state_->folder_times.erase(e->first);
      e = state_->entries.erase(e);
    } else {
      ++e;
    }
  }
  return Status::Ok();
}

Status MemoryStore::free_space(uint64_t* bytes) {
  std::lock_guard<std::mutex> lock(state_->mu);
  uint64_t used = 0;
  for (const auto& [p, fd] : state_->entries) {
    struct stat st {};
    if (fd >= 0 && fstat(fd, &st) == 0) used += static_cast<uint64_t>(st.st_blocks) * 512;
  }
  *bytes = used >= state_->capacity ? 0 : state_->capacity - used;
  return Status::Ok();
}

namespace {

// Held in this process only: the memory store has no other process to keep out.
class MemoryLock final : public StoreLock {
 public:
  MemoryLock(std::mutex* mu, std::set<std::string>* locked, std::string path, bool created)
      : mu_(mu), locked_(locked), path_(std::move(path)), created_(created) {}
  ~MemoryLock() override {
    std::lock_guard<std::mutex> lock(*mu_);
    locked_->erase(path_);
  }
  bool created() const override { return created_; }

 private:
  std::mutex* mu_;
  std::set<std::string>* locked_;
  std::string path_;
  bool created_;
};

}  // namespace

Status MemoryStore::lock(std::string_view path, std::unique_ptr<StoreLock>* out) {
  if (Status s = check_store_path(path); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(state_->mu);
  const std::string p(path);
  if (const int e = state_->take_fault(path); e != 0) return Status::FromErrno("lock " + p, e);
  const std::string parent = parent_of(path);
  if (!parent.empty()) {
    auto pit = state_->entries.find(parent);
    if (pit == state_->entries.end()) return Status::FromErrno("open " + p, ENOENT);
    if (pit->second >= 0) return Status::FromErrno("open " + p, ENOTDIR);
  }
  bool created = false;
  auto it = state_->entries.find(p);
  if (it == state_->entries.end()) {
    const int fd = memfd_create(p.c_str(), MFD_CLOEXEC);
    if (fd < 0) return Status::FromErrno("memfd_create " + p, errno);
    state_->entries[p] = fd;
    created = true;
  } else if (it->second < 0) {
    return Status::FromErrno("open " + p, EISDIR);
  }
  if (!state_->locked.insert(p).second)
    return Status::Invalid(location_ + p + " is locked by another holder");
  *out = std::make_unique<MemoryLock>(&state_->mu, &state_->locked, p, created);
  return Status::Ok();
}

Status MemoryStore::sync_all() {
  std::lock_guard<std::mutex> lock(state_->mu);
  ++state_->syncs;
  return Status::Ok();
}

void MemoryStore::fail_next(std::string_view path, int err) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->faults[std::string(path)] = err;
}

uint64_t MemoryStore::syncs() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->syncs;
}

}  // namespace iofab
