// In harness/fs (the platform layer): it calls the POSIX namespace on purpose, as CPython does, which
// workloads/ may not (cmake/CheckLayers.cmake).
// The work a PyTorch DataLoader does per sample and per batch, done for real by the train_read profile
// (loader: pytorch) and by `iofab calibrate` when it measures that work's own cost:
// - a sample as `open(path, 'rb').read()` then `bytearray(...)` does it, in the syscalls strace -f shows
//   of CPython 3.11: openat, newfstatat, ioctl(TCGETS) failing with ENOTTY, lseek twice, newfstatat,
//   read(size + 1), read returning 0, close; then the bytes copied into a new buffer;
// - a batch as default_collate does it in a worker: a shared-memory file made in /dev/shm as torch's
//   THMapAllocator makes it (openat O_CREAT|O_EXCL, newfstatat, ftruncate, newfstatat, write of one byte,
//   mmap, unlink), the samples copied into it, and its descriptor passed to the main process over a
//   socket (SCM_RIGHTS), which maps it.
// Every syscall is counted by name (SyscallCounts), so a test can hold the profile beside strace -f -c of
// the real DataLoader.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/core/status.h"

namespace iofab {

enum class Sys : uint8_t {
  kOpenat,
  kNewfstatat,
  kIoctl,
  kLseek,
  kRead,
  kClose,
  kFadvise,
  kFtruncate,
  kWrite,
  kMmap,
  kMunmap,
  kUnlink,
  kSendmsg,
  kRecvmsg,
  kCount
};

struct SyscallCounts {
  std::array<uint64_t, static_cast<size_t>(Sys::kCount)> n{};
  void add(Sys s, uint64_t k = 1) { n[static_cast<size_t>(s)] += k; }
  uint64_t of(Sys s) const { return n[static_cast<size_t>(s)]; }
  void merge(const SyscallCounts& o);
  // {"openat": 8192, ...}, names as strace prints them; with per > 0 each count divided by per.
  nlohmann::json to_json(double per = 0) const;
};

// One sample read as CPython reads it; *bytes gets a copy (the bytearray), sized to the file.
// in_flight: the reads this worker has in flight (1 during the read), *max_in_flight its most.
// drop_after_use: the file's pages dropped before close (posix_fadvise DONTNEED).
struct SampleReadStats {
  std::atomic<uint32_t>* in_flight = nullptr;  // shared by all workers: the total in flight
  uint32_t max_in_flight_total = 0;
  uint32_t max_in_flight_worker = 0;
  uint32_t in_flight_worker = 0;
  uint64_t reads = 0;        // read() calls
  uint64_t asked_bytes = 0;  // what they asked for (CPython asks size + 1, then the 1 left)
  uint64_t empty_reads = 0;  // those that returned 0 (end of file)
};
Status read_sample_like_python(const std::string& path, bool drop_after_use,
                               std::vector<unsigned char>* bytes, SyscallCounts* counts,
                               SampleReadStats* stats);

// A batch's shared-memory buffer, as a worker's default_collate makes it.
struct ShmBatch {
  int fd = -1;
  unsigned char* map = nullptr;
  uint64_t bytes = 0;
  ShmBatch() = default;
  ShmBatch(const ShmBatch&) = delete;
  ShmBatch& operator=(const ShmBatch&) = delete;
  ~ShmBatch();
  void release(SyscallCounts* counts);  // munmap and close (counted)
};
Status make_shm_batch(uint64_t bytes, SyscallCounts* counts, ShmBatch* out);

// What crosses from a worker to the main process per batch, with the batch's descriptor (SCM_RIGHTS).
struct BatchMessage {
  uint64_t batch = 0;
  uint64_t bytes = 0;
  uint32_t worker = 0;
  int32_t error = 0;  // an errno the worker hit; then no descriptor comes
};
Status send_batch(int sock, const BatchMessage& m, int fd, SyscallCounts* counts);
// Waits up to timeout_ms: *got false on timeout. *fd: the batch's descriptor, -1 when none came.
Status recv_batch(int sock, int timeout_ms, BatchMessage* m, int* fd, bool* got, SyscallCounts* counts);
// The main process's side of the handoff: maps the descriptor it received and closes it.
Status map_received_batch(int fd, uint64_t bytes, SyscallCounts* counts, ShmBatch* out);

// Spends ns of this thread's CPU time (CLOCK_THREAD_CPUTIME_ID): a spin, never a sleep, so on a busy
// machine it competes for the cores as the interpreter's work does. Stops early when stop is set.
void spin_cpu_ns(uint64_t ns, const std::atomic<bool>* stop);
uint64_t thread_cpu_time_ns();

}  // namespace iofab
