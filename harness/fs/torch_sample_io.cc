#include "harness/fs/torch_sample_io.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

namespace iofab {
namespace {

constexpr const char* kSysNames[] = {"openat", "newfstatat", "ioctl",     "lseek",  "read",
                                     "close",  "fadvise64",  "ftruncate", "write",  "mmap",
                                     "munmap", "unlink",     "sendmsg",   "recvmsg"};
static_assert(std::size(kSysNames) == static_cast<size_t>(Sys::kCount));

// CPython's FileIO.readall: read(size + 1) into a buffer one byte past the size fstat gave, then on until
// a read returns 0 (for a regular file: one more read of the byte left).
Status read_all(int fd, uint64_t size, const std::string& path, std::vector<unsigned char>* raw,
                SyscallCounts* counts, SampleReadStats* stats) {
  raw->resize(size + 1);
  uint64_t got = 0;
  for (;;) {
    if (got == raw->size()) raw->resize(raw->size() + raw->size() / 8 + 1);
    const uint64_t ask = raw->size() - got;
    const ssize_t n = ::read(fd, raw->data() + got, ask);
    counts->add(Sys::kRead);
    stats->reads++;
    stats->asked_bytes += ask;
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno("read " + path, errno);
    }
    if (n == 0) break;
    got += static_cast<uint64_t>(n);
  }
  stats->empty_reads++;
  raw->resize(got);
  return Status::Ok();
}

}  // namespace

void SyscallCounts::merge(const SyscallCounts& o) {
  for (size_t i = 0; i < n.size(); ++i) n[i] += o.n[i];
}

nlohmann::json SyscallCounts::to_json(double per) const {
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < n.size(); ++i) {
    if (n[i] == 0) continue;
    j[kSysNames[i]] = per > 0 ? nlohmann::json(static_cast<double>(n[i]) / per) : nlohmann::json(n[i]);
  }
  return j;
}

Status read_sample_like_python(const std::string& path, bool drop_after_use,
                               std::vector<unsigned char>* bytes, SyscallCounts* counts,
                               SampleReadStats* stats) {
  const uint32_t total = stats->in_flight != nullptr ? stats->in_flight->fetch_add(1) + 1 : 1;
  stats->max_in_flight_total = std::max(stats->max_in_flight_total, total);
  stats->max_in_flight_worker = std::max(stats->max_in_flight_worker, ++stats->in_flight_worker);
  struct Leave {
    SampleReadStats* s;
    ~Leave() {
      if (s->in_flight != nullptr) s->in_flight->fetch_sub(1);
      --s->in_flight_worker;
    }
  } leave{stats};
  const int fd = ::openat(AT_FDCWD, path.c_str(), O_RDONLY | O_CLOEXEC);
  counts->add(Sys::kOpenat);
  if (fd < 0) return Status::FromErrno("open " + path, errno);
  struct stat st {};
  // FileIO.__init__ (fstat), open()'s isatty check, BufferedReader's two tells, readall's fstat.
  int rc = ::fstatat(fd, "", &st, AT_EMPTY_PATH);
  struct termios tio {};
  (void)::ioctl(fd, TCGETS, &tio);  // fails (ENOTTY) on a file, as in Python
  (void)::lseek(fd, 0, SEEK_CUR);
  (void)::lseek(fd, 0, SEEK_CUR);
  if (rc == 0) rc = ::fstatat(fd, "", &st, AT_EMPTY_PATH);
  counts->add(Sys::kNewfstatat, 2);
  counts->add(Sys::kIoctl);
  counts->add(Sys::kLseek, 2);
  Status s = rc == 0 ? Status::Ok() : Status::FromErrno("fstat " + path, errno);
  std::vector<unsigned char> raw;
  if (s.ok()) s = read_all(fd, static_cast<uint64_t>(st.st_size), path, &raw, counts, stats);
  if (drop_after_use) {
    (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    counts->add(Sys::kFadvise);
  }
  ::close(fd);
  counts->add(Sys::kClose);
  if (s.ok()) bytes->assign(raw.begin(), raw.end());  // bytearray(bytes): a copy
  return s;
}

ShmBatch::~ShmBatch() {
  if (map != nullptr) ::munmap(map, bytes);
  if (fd >= 0) ::close(fd);
}

void ShmBatch::release(SyscallCounts* counts) {
  if (map != nullptr) {
    ::munmap(map, bytes);
    counts->add(Sys::kMunmap);
    map = nullptr;
  }
  if (fd >= 0) {
    ::close(fd);
    counts->add(Sys::kClose);
    fd = -1;
  }
}

Status make_shm_batch(uint64_t bytes, SyscallCounts* counts, ShmBatch* out) {
  static std::atomic<uint64_t> serial{0};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  const std::string name = "/dev/shm/iofab_torch_" + std::to_string(::getpid()) + "_" +
                           std::to_string(rng() & 0xffffffffu) + "_" + std::to_string(serial.fetch_add(1));
  out->bytes = bytes == 0 ? 1 : bytes;
  out->fd = ::openat(AT_FDCWD, name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  counts->add(Sys::kOpenat);
  if (out->fd < 0) return Status::FromErrno("open " + name, errno);
  struct stat st {};
  (void)::fstatat(out->fd, "", &st, AT_EMPTY_PATH);
  int rc = ::ftruncate(out->fd, static_cast<off_t>(out->bytes));
  (void)::fstatat(out->fd, "", &st, AT_EMPTY_PATH);
  if (rc == 0) rc = ::write(out->fd, "", 1) == 1 ? 0 : -1;
  counts->add(Sys::kNewfstatat, 2);
  counts->add(Sys::kFtruncate);
  counts->add(Sys::kWrite);
  void* m =
      rc == 0 ? ::mmap(nullptr, out->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, out->fd, 0) : MAP_FAILED;
  if (rc == 0) counts->add(Sys::kMmap);
  const int err = errno;
  ::unlink(name.c_str());
  counts->add(Sys::kUnlink);
  if (rc != 0 || m == MAP_FAILED) return Status::FromErrno("shared memory " + name, err);
  out->map = static_cast<unsigned char*>(m);
  return Status::Ok();
}

Status send_batch(int sock, const BatchMessage& m, int fd, SyscallCounts* counts) {
  iovec iov{.iov_base = const_cast<BatchMessage*>(&m), .iov_len = sizeof m};
  alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))] = {};
  msghdr h{};
  h.msg_iov = &iov;
  h.msg_iovlen = 1;
  if (fd >= 0) {
    h.msg_control = ctl;
    h.msg_controllen = sizeof ctl;
    cmsghdr* c = CMSG_FIRSTHDR(&h);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  }
  counts->add(Sys::kSendmsg);
  while (::sendmsg(sock, &h, MSG_NOSIGNAL) < 0) {
    if (errno != EINTR) return Status::FromErrno("send a batch to the main loop", errno);
  }
  return Status::Ok();
}

Status recv_batch(int sock, int timeout_ms, BatchMessage* m, int* fd, bool* got, SyscallCounts* counts) {
  *got = false;
  *fd = -1;
  pollfd p{.fd = sock, .events = POLLIN, .revents = 0};
  const int ready = ::poll(&p, 1, timeout_ms);
  if (ready < 0) return errno == EINTR ? Status::Ok() : Status::FromErrno("poll the workers' socket", errno);
  if (ready == 0) return Status::Ok();
  iovec iov{.iov_base = m, .iov_len = sizeof *m};
  alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))] = {};
  msghdr h{};
  h.msg_iov = &iov;
  h.msg_iovlen = 1;
  h.msg_control = ctl;
  h.msg_controllen = sizeof ctl;
  counts->add(Sys::kRecvmsg);
  const ssize_t n = ::recvmsg(sock, &h, MSG_CMSG_CLOEXEC);
  if (n < 0) return errno == EINTR ? Status::Ok() : Status::FromErrno("receive a batch", errno);
  if (n != static_cast<ssize_t>(sizeof *m)) return Status::Internal("a worker's message was cut short");
  for (cmsghdr* c = CMSG_FIRSTHDR(&h); c != nullptr; c = CMSG_NXTHDR(&h, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) std::memcpy(fd, CMSG_DATA(c), sizeof *fd);
  }
  *got = true;
  return Status::Ok();
}

Status map_received_batch(int fd, uint64_t bytes, SyscallCounts* counts, ShmBatch* out) {
  out->bytes = bytes == 0 ? 1 : bytes;
  void* m = ::mmap(nullptr, out->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  counts->add(Sys::kMmap);
  const int err = errno;
  ::close(fd);
  counts->add(Sys::kClose);
  if (m == MAP_FAILED) return Status::FromErrno("map a batch", err);
  out->map = static_cast<unsigned char*>(m);
  return Status::Ok();
}

uint64_t thread_cpu_time_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

void spin_cpu_ns(uint64_t ns, const std::atomic<bool>* stop) {
  if (ns == 0) return;
  // The thread's CPU clock is a syscall (no vDSO): read it every few hundred ns of work, not in a tight
  // loop, so the spin is mostly work and adds few clock_gettime calls beside the profile's own syscalls.
  const uint64_t end = thread_cpu_time_ns() + ns;
  volatile uint64_t sink = 0;
  for (unsigned i = 0;; ++i) {
    for (unsigned k = 0; k < 256; ++k) sink = sink + k;
    if (thread_cpu_time_ns() >= end) return;
    if ((i & 255) == 0 && stop != nullptr && stop->load(std::memory_order_relaxed)) return;
  }
}

}  // namespace iofab
