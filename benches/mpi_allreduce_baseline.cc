// A plain MPI_Allreduce timing loop, nccl-tests' way and nothing else: the
// yardstick ci/bench-vs-mpi holds iofab's collectives sweep against. Float32
// sums, out of place, page-aligned buffers touched before timing; per size a
// barrier, warm-up calls, then `iters` calls back to back; each rank's time
// is its block's time / iters, and a size's time is made from the ranks'
// times by --time, as nccl-tests' -a: avg (the mean, nccl-tests' default and
// iofab's), max (the slowest rank's), min, rank0. busbw = S / t * 2(n-1)/n.
// Like iofab, it reads the clock between calls, and also reports the median
// call: each call's time combined across ranks the same way, then the
// nearest-rank p50 over the calls (iofab's p50_s), which a descheduled rank
// on a busy machine moves far less than the mean.
//   mpirun -np 2 mpi_allreduce_baseline [--min BYTES] [--max BYTES] [--factor F] [--iters N] [--warmup N]
//                                       [--time avg|max|min|rank0]
// Prints a "# time across ranks: ..." line, then "bytes seconds algbw busbw p50_seconds p50_busbw" per size
// on rank 0 (bytes/s).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Args {
  unsigned long long min = 1 << 20;
  unsigned long long max = 64 << 20;
  double factor = 2;
  int iters = 20;
  int warmup = 5;
  std::string time = "avg";
};

bool parse(int argc, char** argv, Args* a) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--min")
      a->min = std::strtoull(v, nullptr, 10);
    else if (k == "--max")
      a->max = std::strtoull(v, nullptr, 10);
    else if (k == "--factor")
      a->factor = std::strtod(v, nullptr);
    else if (k == "--iters")
      a->iters = std::atoi(v);
    else if (k == "--warmup")
      a->warmup = std::atoi(v);
    else if (k == "--time")
      a->time = v;
    else
      return false;
  }
  const bool time_ok = a->time == "avg" || a->time == "max" || a->time == "min" || a->time == "rank0";
  return argc % 2 == 1 && a->min >= 4 && a->max >= a->min && a->factor > 1 && a->iters > 0 &&
         a->warmup >= 0 && time_ok;
}

// One time from every rank's, as nccl-tests' Allreduce(args, &deltaSec, average) makes it.
double across_ranks(const std::string& how, double mine, int ranks) {
  double out = mine;
  if (how == "avg") {
    MPI_Allreduce(&mine, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    out /= ranks;
  } else if (how == "max") {
    MPI_Allreduce(&mine, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  } else if (how == "min") {
    MPI_Allreduce(&mine, &out, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  } else {
    MPI_Bcast(&out, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
  return out;
}

// Each call's time across ranks, the same way, element by element.
void across_ranks(const std::string& how, std::vector<double>* times) {
  const int n = static_cast<int>(times->size());
  if (how == "rank0") {
    MPI_Bcast(times->data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return;
  }
  const MPI_Op op = how == "max" ? MPI_MAX : how == "min" ? MPI_MIN : MPI_SUM;
  MPI_Allreduce(MPI_IN_PLACE, times->data(), n, MPI_DOUBLE, op, MPI_COMM_WORLD);
  if (how == "avg") {
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    for (double& t : *times) t /= ranks;
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t rank = (v.size() + 1) / 2;  // nearest rank: ceil(0.5 n)
  return v[rank - 1];
}

const char* meaning(const std::string& how) {
  if (how == "avg") return "avg: the mean of the ranks' times (nccl-tests -a 1, its default)";
  if (how == "max") return "max: the slowest rank's time (nccl-tests -a 3)";
  if (how == "min") return "min: the fastest rank's time (nccl-tests -a 2)";
  return "rank0: rank 0's time (nccl-tests -a 0)";
}

float* touched_buffer(size_t bytes) {
  void* p = nullptr;
  if (posix_memalign(&p, 4096, (bytes + 4095) / 4096 * 4096) != 0) return nullptr;
  std::memset(p, 0, bytes);
  return static_cast<float*>(p);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Args a;
  if (!parse(argc, argv, &a)) {
    if (rank == 0)
      std::fprintf(stderr,
                   "usage: %s [--min BYTES] [--max BYTES] [--factor F] [--iters N] [--warmup N] "
                   "[--time avg|max|min|rank0]\n",
                   argv[0]);
    MPI_Finalize();
    return 2;
  }
  float* send = touched_buffer(a.max);
  float* recv = touched_buffer(a.max);
  if (send == nullptr || recv == nullptr) MPI_Abort(MPI_COMM_WORLD, 3);
  if (rank == 0) std::printf("# time across ranks: %s\n", meaning(a.time));
  std::vector<std::chrono::steady_clock::time_point> marks(static_cast<size_t>(a.iters) + 1);
  for (unsigned long long size = a.min; size <= a.max;) {
    const int count = static_cast<int>(size / sizeof(float));
    for (int i = 0; i < count; ++i) send[i] = static_cast<float>((i + rank) % 7);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < a.warmup; ++i) MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    marks[0] = std::chrono::steady_clock::now();
    for (int i = 0; i < a.iters; ++i) {
      MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      marks[static_cast<size_t>(i) + 1] = std::chrono::steady_clock::now();
    }
    const double mine = std::chrono::duration<double>(marks.back() - marks[0]).count() / a.iters;
    const double seconds = across_ranks(a.time, mine, ranks);
    std::vector<double> calls(static_cast<size_t>(a.iters));
    for (size_t i = 0; i < calls.size(); ++i)
      calls[i] = std::chrono::duration<double>(marks[i + 1] - marks[i]).count();
    across_ranks(a.time, &calls);
    const double p50 = median(calls);
    const double bytes = static_cast<double>(count) * sizeof(float);
    const double algbw = bytes / seconds;
    if (rank == 0) {
      const double factor = 2.0 * (ranks - 1) / ranks;
      std::printf("%llu %.9g %.6g %.6g %.9g %.6g\n", size, seconds, algbw, algbw * factor, p50,
                  bytes / p50 * factor);
      std::fflush(stdout);
    }
    const unsigned long long next = static_cast<unsigned long long>(static_cast<double>(size) * a.factor);
    size = next > size ? next : size + 1;
  }
  std::free(send);
  std::free(recv);
  MPI_Finalize();
  return 0;
}
