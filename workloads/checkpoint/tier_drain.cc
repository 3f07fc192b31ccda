#include "workloads/checkpoint/tier_drain.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <vector>

#include "harness/engines/io_driver.h"
#include "workloads/checkpoint/phase_folder.h"

namespace iofab {
namespace {

// O_DIRECT's alignment, which any buffer here keeps so the shared side may bypass the cache.
constexpr size_t kAlign = 4096;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

Status write_all(int fd, const char* data, size_t len, uint64_t offset, const std::string& name) {
  while (len > 0) {
    const ssize_t n = pwrite(fd, data, len, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::FromErrno("write " + name, n < 0 ? errno : ENOSPC);
    data += n;
    len -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

// One file: read from the local step, written and synced into the shared step-N.tmp/.
Status copy_file(const DrainSpec& spec, const std::string& from_folder, const std::string& name, bool direct,
                 char* buf, size_t buf_len, uint64_t* bytes) {
  StoreFile in;
  Status s = spec.local->open(join_store_path(from_folder, name), {}, &in);
  if (!s.ok()) return s;
  StoreFile out;
  s = create_shard_file(*spec.shared, spec.shared_folder, step_dir_name(spec.step), name, direct,
                        writes_in_place(spec.layout), &out);
  if (!s.ok()) return s;
  uint64_t offset = 0;
  while (true) {
    if (spec.stop != nullptr && spec.stop->load()) return Status::Interrupted();
    const ssize_t n = pread(in.fd(), buf, buf_len, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno("read " + in.path(), errno);
    if (n == 0) break;
    s = write_all(out.fd(), buf, static_cast<size_t>(n), offset, out.path());
    if (!s.ok()) return s;
    offset += static_cast<uint64_t>(n);
    *bytes += static_cast<uint64_t>(n);
  }
  s = spec.shared->sync(out);
  if (!s.ok()) return s;
  // A close that fails can lose what the sync reported done (NFS): it fails the drain.
  if (close(out.release()) != 0) return Status::FromErrno("close " + name, errno);
  return Status::Ok();
}

// The shared step folder the layout's writers write into.
std::string shared_step(const DrainSpec& spec) {
  return join_store_path(spec.shared_folder,
                         writes_in_place(spec.layout) ? step_dir_name(spec.step) : step_tmp_name(spec.step));
}

// Copies the folder rel (below the local step; "" is the step) into the shared step folder, files
// and subfolders alike (a layout may hold a folder per parallel rank), each subfolder synced.
Status copy_tree(const DrainSpec& spec, const std::string& from, const std::string& rel, char* buf,
                 size_t buf_len, uint64_t* bytes) {
  std::vector<std::string> names;
  Status s = spec.local->list(join_store_path(from, rel), &names);
  if (!s.ok()) return s;
  const std::string to = join_store_path(shared_step(spec), rel);
  for (const std::string& name : names) {
    // The shared side's commit writes its own commit file, for every rank's part, last.
    if (rel.empty() && name == commit_file_name(spec.layout)) continue;
    const std::string path = join_store_path(rel, name);
    EntryInfo info;
    s = spec.local->stat(join_store_path(from, path), &info);
    if (!s.ok()) return s;
    if (info.kind == EntryKind::kFolder) {
      s = spec.shared->make_folder(join_store_path(to, name));
      if (s.ok()) s = copy_tree(spec, from, path, buf, buf_len, bytes);
    } else if (info.kind == EntryKind::kFile) {
      // O_DIRECT takes whole 4 KiB blocks: a file of another size (a layout's small metadata file) goes
      // through the cache, synced all the same.
      s = copy_file(spec, from, path, spec.direct && info.size % kAlign == 0, buf, buf_len, bytes);
    }
    if (!s.ok()) return Status::FromCode(s.code(), "drain of " + path + ": " + s.message());
  }
  // The step folder itself is synced by the commit, as a single-tier step's is.
  return rel.empty() ? Status::Ok() : spec.shared->sync_folder(to);
}

}  // namespace

Status drain_step(const DrainSpec& spec, uint64_t* bytes) {
  *bytes = 0;
  const size_t buf_len = static_cast<size_t>(std::max<uint64_t>(kAlign, spec.block_size / kAlign * kAlign));
  void* raw = nullptr;
  if (posix_memalign(&raw, kAlign, buf_len) != 0)
    return Status::IoError("drain: out of memory for its buffer");
  const std::unique_ptr<void, FreeDeleter> buf(raw);
  Status s = spec.shared->make_folder(shared_step(spec));
  if (!s.ok()) return s;
  return copy_tree(spec, join_store_path(spec.local_folder, step_dir_name(spec.step)), "",
                   static_cast<char*>(raw), buf_len, bytes);
}

TierDrain::~TierDrain() {
  if (thread_.joinable()) thread_.join();
}

void TierDrain::start(const DrainSpec& spec) {
  done_.store(false);
  thread_ = std::thread([this, spec] {
    const uint64_t t0 = now_ns();
    status_ = drain_step(spec, &bytes_);
    ns_ = now_ns() - t0;
    done_.store(true);
  });
}

Status TierDrain::wait(uint64_t* drain_ns, uint64_t* bytes) {
  if (thread_.joinable()) thread_.join();
  *drain_ns = ns_;
  *bytes = bytes_;
  return status_;
}

}  // namespace iofab
