#include "workloads/train_read/torch_native_costs.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "harness/engines/io_driver.h"
#include "harness/fs/torch_sample_io.h"

namespace iofab {
namespace {

// One batch's collate and handoff, both sides: the worker's CPU and the main loop's.
Status one_batch(const std::vector<std::vector<unsigned char>>& samples, const int sock[2],
                 uint64_t* worker_ns, uint64_t* main_ns) {
  SyscallCounts counts;
  uint64_t t0 = thread_cpu_time_ns();
  uint64_t bytes = 0;
  for (const auto& x : samples) bytes += x.size();
  ShmBatch shm;
  if (Status s = make_shm_batch(bytes, &counts, &shm); !s.ok()) return s;
  uint64_t at = 0;
  for (const auto& x : samples) {
    std::memcpy(shm.map + at, x.data(), x.size());
    at += x.size();
  }
  Status s = send_batch(sock[1], {.batch = 0, .bytes = bytes, .worker = 0, .error = 0}, shm.fd, &counts);
  shm.release(&counts);
  *worker_ns += thread_cpu_time_ns() - t0;
  if (!s.ok()) return s;
  t0 = thread_cpu_time_ns();
  const uint64_t index = 0;
  if (::write(sock[1], &index, 0) < 0) return Status::FromErrno("write", errno);  // the index handout's write
  BatchMessage m;
  int fd = -1;
  bool got = false;
  if (s = recv_batch(sock[0], 1000, &m, &fd, &got, &counts); !s.ok()) return s;
  if (!got || fd < 0) return Status::Internal("calibrate: the batch did not come back");
  ShmBatch mapped;
  s = map_received_batch(fd, m.bytes, &counts, &mapped);
  mapped.release(&counts);
  // The zero-length index write, read back so the socket stays empty.
  char sink = 0;
  (void)::recv(sock[0], &sink, 0, MSG_DONTWAIT);
  *main_ns += thread_cpu_time_ns() - t0;
  return s;
}

}  // namespace

Status measure_native_loader_point(const std::vector<std::string>& paths, uint64_t size, uint64_t batch,
                                   LoaderPoint* out) {
  if (paths.empty() || batch == 0) return Status::Invalid("calibrate: no files to measure");
  int sock[2] = {-1, -1};
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) != 0) {
    return Status::FromErrno("socketpair", errno);
  }
  SyscallCounts counts;
  SampleReadStats rs;
  uint64_t read_ns = 0, worker_ns = 0, main_ns = 0, batches = 0;
  std::vector<std::vector<unsigned char>> samples;
  Status st;
  for (size_t i = 0; st.ok() && i < paths.size(); ++i) {
    const uint64_t t0 = thread_cpu_time_ns();
    std::vector<unsigned char> bytes;
    st = read_sample_like_python(paths[i], false, &bytes, &counts, &rs);
    read_ns += thread_cpu_time_ns() - t0;
    samples.push_back(std::move(bytes));
    if (st.ok() && (samples.size() == batch || i + 1 == paths.size())) {
      st = one_batch(samples, sock, &worker_ns, &main_ns);
      samples.clear();
      batches++;
    }
  }
  ::close(sock[0]);
  ::close(sock[1]);
  if (!st.ok()) return st;
  *out = {.size = static_cast<double>(size),
          .batch_bytes = static_cast<double>(size * batch),
          .sample_s = static_cast<double>(read_ns) * 1e-9 / static_cast<double>(paths.size()),
          .collate_s = static_cast<double>(worker_ns) * 1e-9 / static_cast<double>(batches),
          .main_batch_s = static_cast<double>(main_ns) * 1e-9 / static_cast<double>(batches)};
  return Status::Ok();
}

double measure_native_worker_start() {
  std::vector<uint64_t> spans;
  for (int i = 0; i < 5; ++i) {
    const uint64_t t0 = now_ns();
    std::thread t([] {});
    t.join();
    spans.push_back(now_ns() - t0);
  }
  std::sort(spans.begin(), spans.end());
  return static_cast<double>(spans[spans.size() / 2]) * 1e-9;
}

}  // namespace iofab
