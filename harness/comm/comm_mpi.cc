// MpiComm: the control plane over MPI_COMM_WORLD.
#include <mpi.h>

#include <memory>
#include <numeric>

#include "harness/comm/comm.h"

namespace iofab {
namespace {

Status mpi_status(const char* call, int rc) {
  if (rc == MPI_SUCCESS) return Status::Ok();
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return Status::IoError(std::string(call) + ": " + std::string(text, static_cast<size_t>(len)));
}

class MpiComm final : public Comm {
 public:
  MpiComm() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    // Errors come back as codes so a lost rank becomes a report, not a crash.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  ~MpiComm() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }

  std::string_view name() const override { return "mpi"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  Status barrier() override { return mpi_status("MPI_Barrier", MPI_Barrier(MPI_COMM_WORLD)); }

  Status broadcast(std::string* s, int root) override {
    unsigned long long len = s->size();
    Status st = mpi_status("MPI_Bcast", MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD));
    if (!st.ok()) return st;
    s->resize(len);
    return mpi_status("MPI_Bcast", MPI_Bcast(s->data(), static_cast<int>(len), MPI_CHAR, root, MPI_COMM_WORLD));
  }

  Status gather(const std::string& mine, std::vector<std::string>* all, int root) override {
    int len = static_cast<int>(mine.size());
    std::vector<int> lens(rank_ == root ? size_ : 0);
    Status st = mpi_status("MPI_Gather", MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, root, MPI_COMM_WORLD));
    if (!st.ok()) return st;
    std::vector<int> displs(lens.size());
    std::string buf;
    if (rank_ == root) {
      std::exclusive_scan(lens.begin(), lens.end(), displs.begin(), 0);
      buf.resize(static_cast<size_t>(std::accumulate(lens.begin(), lens.end(), 0)));
    }
    st = mpi_status("MPI_Gatherv", MPI_Gatherv(mine.data(), len, MPI_CHAR, buf.data(), lens.data(), displs.data(),
                                               MPI_CHAR, root, MPI_COMM_WORLD));
    if (!st.ok()) return st;
    all->clear();
    if (rank_ == root) {
      for (int r = 0; r < size_; ++r) {
        all->push_back(buf.substr(static_cast<size_t>(displs[r]), static_cast<size_t>(lens[r])));
      }
    }
    return Status::Ok();
  }

  Status all_gather(double mine, std::vector<double>* all) override {
    all->assign(static_cast<size_t>(size_), 0.0);
    return mpi_status("MPI_Allgather",
                      MPI_Allgather(&mine, 1, MPI_DOUBLE, all->data(), 1, MPI_DOUBLE, MPI_COMM_WORLD));
  }

  void abort(int exit_code) override { MPI_Abort(MPI_COMM_WORLD, exit_code); }

 private:
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

Status make_mpi_comm(int* argc, char*** argv, std::unique_ptr<Comm>* out) {
  int provided = 0;
  int rc = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  if (rc != MPI_SUCCESS) return mpi_status("MPI_Init_thread", rc);
  *out = std::make_unique<MpiComm>();
  return Status::Ok();
}

}  // namespace iofab
