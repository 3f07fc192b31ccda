// MpiComm: the control plane over MPI_COMM_WORLD, built from point-to-point
// messages that are polled with a deadline, so that a lost or stuck rank
// turns into an error naming it instead of a hang (MPI's own blocking
// collectives would wait forever, and cannot say who is missing).
#include <mpi.h>

#include <chrono>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>
#include <thread>

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

// Tags of the control plane; data-plane collectives use MPI's own calls on other communicators or tags.
constexpr int kTagBase = 7000;
constexpr int kTagSpan = 20000;
// The writer's word that the report is durable; outside the span, so no control-plane call takes it.
constexpr int kTagRelease = kTagBase + kTagSpan + 1;

class MpiComm final : public Comm {
 public:
  // The world's control plane; threads: the thread level MPI_Init_thread gave.
  explicit MpiComm(int threads) : comm_(MPI_COMM_WORLD), world_(true), threads_(threads) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    // Errors come back as codes so a lost rank becomes a report, not a crash.
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    // Who runs where: a silent rank on this host can then be told dead from merely slow.
    Peer me{};
    gethostname(me.host, sizeof me.host - 1);
    me.pid = getpid();
    peers_.resize(static_cast<size_t>(size_));
    MPI_Allgather(&me, sizeof me, MPI_BYTE, peers_.data(), sizeof me, MPI_BYTE, comm_);
  }
  // A duplicate of parent's communicator (MPI_Comm_dup, already made): the same ranks, its own
  // message space, for a phase that runs beside others.
  MpiComm(const MpiComm& parent, MPI_Comm dup)
      : comm_(dup), world_(false), threads_(parent.threads_), rank_(parent.rank_), size_(parent.size_),
        peers_(parent.peers_) {
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    rank_timeout_s_ = parent.rank_timeout_s_;
    stop_ = parent.stop_;
    stop_grace_s_ = parent.stop_grace_s_;
  }
  ~MpiComm() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (!world_) {
      // A lost rank would make MPI_Comm_free wait for it: leave the communicator to the job's end.
      if (!failed_) MPI_Comm_free(&comm_);
      return;
    }
    // MPI_Finalize would wait for the lost rank; end the job instead.
    if (failed_) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Finalize();
  }

  Status duplicate(std::unique_ptr<Comm>* out) override {
    if (failed_) return failure_;
    if (threads_ < MPI_THREAD_MULTIPLE) {
      return Status::Unavailable("phases that run at once need MPI_THREAD_MULTIPLE, and this MPI library gave " +
                                 std::string(threads_ == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                                             : threads_ == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED"
                                                                               : "MPI_THREAD_SINGLE"));
    }
    MPI_Comm dup = MPI_COMM_NULL;
    if (Status s = mpi_status("MPI_Comm_dup", MPI_Comm_dup(comm_, &dup)); !s.ok()) return s;
    *out = std::make_unique<MpiComm>(*this, dup);
    return Status::Ok();
  }

  std::string_view name() const override { return "mpi"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  Status barrier() override {
    std::vector<std::string> all;
    Status s = gather("", &all, 0);
    if (!s.ok()) return s;
    std::string token;
    return broadcast(&token, 0);
  }

  Status broadcast(std::string* s, int root) override {
    if (failed_) return failure_;
    const int tag = next_tag();
    if (rank_ == root) {
      uint64_t len = s->size();
      std::vector<MPI_Request> reqs;
      std::vector<int> peers;
      for (int r = 0; r < size_; ++r) {
        if (r == root) continue;
        reqs.emplace_back();
        MPI_Isend(&len, 1, MPI_UINT64_T, r, tag, comm_, &reqs.back());
        peers.push_back(r);
        reqs.emplace_back();
        MPI_Isend(s->data(), static_cast<int>(len), MPI_CHAR, r, tag + 1, comm_, &reqs.back());
        peers.push_back(r);
      }
      return wait(reqs, peers, "broadcast");
    }
    uint64_t len = 0;
    std::vector<MPI_Request> reqs(1);
    std::vector<int> peers{root};
    MPI_Irecv(&len, 1, MPI_UINT64_T, root, tag, comm_, &reqs[0]);
    Status st = wait(reqs, peers, "broadcast");
    if (!st.ok()) return st;
    s->assign(len, '\0');
    MPI_Irecv(s->data(), static_cast<int>(len), MPI_CHAR, root, tag + 1, comm_, &reqs[0]);
    return wait(reqs, peers, "broadcast");
  }

  Status gather(const std::string& mine, std::vector<std::string>* all, int root) override {
    if (failed_) return failure_;
    const int tag = next_tag();
    all->clear();
    if (rank_ != root) {
      uint64_t len = mine.size();
      std::vector<MPI_Request> reqs(2);
      std::vector<int> peers{root, root};
      MPI_Isend(&len, 1, MPI_UINT64_T, root, tag, comm_, &reqs[0]);
      MPI_Isend(mine.data(), static_cast<int>(len), MPI_CHAR, root, tag + 1, comm_, &reqs[1]);
      return wait(reqs, peers, "gather");
    }
    std::vector<uint64_t> lens(static_cast<size_t>(size_), 0);
    std::vector<MPI_Request> reqs;
    std::vector<int> peers;
    for (int r = 0; r < size_; ++r) {
      if (r == root) continue;
      reqs.emplace_back();
      MPI_Irecv(&lens[static_cast<size_t>(r)], 1, MPI_UINT64_T, r, tag, comm_, &reqs.back());
      peers.push_back(r);
    }
    Status st = wait(reqs, peers, "gather");
    if (!st.ok()) return st;
    all->assign(static_cast<size_t>(size_), std::string());
    (*all)[static_cast<size_t>(root)] = mine;
    reqs.clear();
    peers.clear();
    for (int r = 0; r < size_; ++r) {
      if (r == root) continue;
      auto& buf = (*all)[static_cast<size_t>(r)];
      buf.assign(lens[static_cast<size_t>(r)], '\0');
      reqs.emplace_back();
      MPI_Irecv(buf.data(), static_cast<int>(buf.size()), MPI_CHAR, r, tag + 1, comm_, &reqs.back());
      peers.push_back(r);
    }
    return wait(reqs, peers, "gather");
  }

  Status all_gather(double mine, std::vector<double>* all) override {
    std::string bytes(sizeof mine, '\0');
    std::memcpy(bytes.data(), &mine, sizeof mine);
    std::vector<std::string> parts;
    Status s = gather(bytes, &parts, 0);
    if (!s.ok()) return s;
    std::string joined;
    for (const auto& p : parts) joined += p;
    s = broadcast(&joined, 0);
    if (!s.ok()) return s;
    if (joined.size() != sizeof(double) * static_cast<size_t>(size_)) return Status::Internal("all_gather: bad size");
    all->assign(static_cast<size_t>(size_), 0.0);
    std::memcpy(all->data(), joined.data(), joined.size());
    return Status::Ok();
  }

  void abort(int exit_code) override { MPI_Abort(MPI_COMM_WORLD, exit_code); }

  Status release_survivors() override {
    static const char kToken = 1;
    std::vector<MPI_Request> reqs;
    std::vector<int> peers;
    for (int r = 0; r < size_; ++r) {
      // A rank out of step waits in another call, not for this word.
      if (r == rank_ || std::find(lost_.begin(), lost_.end(), r) != lost_.end() ||
          std::find(out_of_step_.begin(), out_of_step_.end(), r) != out_of_step_.end()) {
        continue;
      }
      reqs.emplace_back();
      MPI_Isend(&kToken, 1, MPI_CHAR, r, kTagRelease, comm_, &reqs.back());
      peers.push_back(r);
    }
    const bool done = poll_until(reqs, [&] {
      // A rank whose process exited since will never take the word.
      for (size_t i = 0; i < reqs.size(); ++i) {
        if (reqs[i] != MPI_REQUEST_NULL && !process_gone(peers[i])) return false;
      }
      return true;
    });
    return done ? Status::Ok() : Status::IoError("the other ranks did not take the word that the report is written");
  }

  Status await_release(int writer) override {
    char token = 0;
    std::vector<MPI_Request> reqs(1);
    MPI_Irecv(&token, 1, MPI_CHAR, writer, kTagRelease, comm_, &reqs[0]);
    bool writer_gone = false;
    const bool done = poll_until(reqs, [&] { return writer_gone = process_gone(writer); });
    if (done) return Status::Ok();
    MPI_Cancel(&reqs[0]);
    return Status::IoError(writer_gone ? "the report's writer, rank " + std::to_string(writer) + ", is gone"
                                       : "no word from the report's writer, rank " + std::to_string(writer) +
                                             ", within the rank timeout");
  }

  std::vector<int> ranks_gone_here() const override {
    std::vector<int> gone;
    for (int r = 0; r < size_; ++r) {
      if (r != rank_ && process_gone(r)) gone.push_back(r);
    }
    return gone;
  }

 private:
  int next_tag() {
    const int t = kTagBase + static_cast<int>(seq_ % (kTagSpan / 2)) * 2;
    ++seq_;
    return t;
  }

  // Polls reqs until all complete; gives up at the rank timeout, or stop_grace_s_ after a stop signal.
  Status wait(std::vector<MPI_Request>& reqs, const std::vector<int>& peers, const char* what) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    const auto deadline = start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(rank_timeout_s_));
    clock::time_point stop_deadline = clock::time_point::max();
    auto pause = std::chrono::microseconds(20);
    while (true) {
      bool done = false;
      if (int rc = test_each(reqs, &done); rc != MPI_SUCCESS) return fail(mpi_status("MPI_Test", rc), {});
      if (done) return Status::Ok();
      const auto now = clock::now();
      if (stop_ != nullptr && stop_->load() && stop_deadline == clock::time_point::max()) {
        stop_deadline = now + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(stop_grace_s_));
      }
      // Waiting on rank 0 alone past the rank timeout: rank 0 may be alive and itself waiting on a lost
      // rank, about to give up, write the report and send its word (release_survivors). A second rank
      // timeout lets it; its word ends the wait without counting it lost, so it keeps the report. Only a
      // rank 0 silent for both (a dead host) hands the report to the lowest survivor (report_rank).
      if (now >= deadline && now < stop_deadline && now < deadline + (deadline - start) &&
          waits_on_root_alone(reqs, peers)) {
        int word = 0;
        MPI_Iprobe(0, kTagRelease, comm_, &word, MPI_STATUS_IGNORE);
        if (word) {
          return fail(Status::IoError("during " + std::string(what) +
                                      ": rank 0 gave up on another rank and wrote the report"),
                      {});
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      if (now >= deadline || now >= stop_deadline) {
        std::vector<int> missing;
        for (size_t i = 0; i < reqs.size(); ++i) {
          if (reqs[i] == MPI_REQUEST_NULL) continue;
          if (missing.empty() || missing.back() != peers[i]) missing.push_back(peers[i]);
        }
        // Ranks whose process is gone are lost; the others only answered late, or are out of step (an
        // earlier answer could not be read: they live, in another call than this one).
        std::vector<int> gone, silent, astray;
        for (int r : missing) {
          const bool strayed = std::find(out_of_step_.begin(), out_of_step_.end(), r) != out_of_step_.end();
          (process_gone(r) ? gone : strayed ? astray : silent).push_back(r);
        }
        auto list = [](const std::vector<int>& v) {
          std::string t;
          for (int r : v) t += (t.empty() ? "" : ", ") + std::to_string(r);
          return t;
        };
        std::string msg = "during " + std::string(what) + ": ";
        if (!gone.empty()) msg += "lost rank" + std::string(gone.size() == 1 ? " " : "s ") + list(gone) + " (process exited)";
        if (!silent.empty()) {
          msg += std::string(gone.empty() ? "lost contact with rank" : "; no answer from rank") +
                 (silent.size() == 1 ? " " : "s ") + list(silent);
        }
        if (!astray.empty()) {
          msg += std::string(gone.empty() && silent.empty() ? "" : "; ") + "no answer from rank" +
                 (astray.size() == 1 ? " " : "s ") + list(astray) + ", alive but out of step (" +
                 (astray.size() == 1 ? "its" : "their") + " earlier answer could not be read)";
        }
        msg += now >= deadline ? " within " + std::to_string(static_cast<int>(rank_timeout_s_)) + " s (rank timeout)"
                               : " within the grace period after a stop signal (the launcher is ending the job)";
        gone_ = gone;
        timed_out_ = now >= deadline;
        // A rank out of step is not lost: it is named in the message, and in out_of_step_ranks().
        return fail(Status::IoError(msg), gone.empty() ? silent : gone);
      }
      std::this_thread::sleep_for(pause);
      if (pause < std::chrono::milliseconds(1)) pause *= 2;
    }
  }

  // True on a rank other than 0 whose pending requests all wait on rank 0.
  bool waits_on_root_alone(const std::vector<MPI_Request>& reqs, const std::vector<int>& peers) const {
    if (rank_ == 0) return false;
    bool any = false;
    for (size_t i = 0; i < reqs.size(); ++i) {
      if (reqs[i] == MPI_REQUEST_NULL) continue;
      if (peers[i] != 0) return false;
      any = true;
    }
    return any;
  }

  // Tests each request on its own, not with MPI_Testall, which leaves every request pending until
  // all are done: a finished one must read MPI_REQUEST_NULL, so that the ranks which answered are
  // never named as missing. *done: all are finished.
  static int test_each(std::vector<MPI_Request>& reqs, bool* done) {
    *done = true;
    for (auto& r : reqs) {
      if (r == MPI_REQUEST_NULL) continue;
      int flag = 0;
      if (int rc = MPI_Test(&r, &flag, MPI_STATUS_IGNORE); rc != MPI_SUCCESS) return rc;
      *done = *done && flag;
    }
    return MPI_SUCCESS;
  }

  // Polls reqs until all complete (true), or until the rank timeout passes or give_up() says so
  // (false; give_up is asked every 20 ms). Unlike wait(), it ignores the stop flag and failed():
  // it carries the end-of-run protocol, which must work after both.
  template <typename GiveUp>
  bool poll_until(std::vector<MPI_Request>& reqs, GiveUp give_up) {
    using clock = std::chrono::steady_clock;
    const auto deadline =
        clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(rank_timeout_s_));
    auto next_ask = clock::now() + std::chrono::milliseconds(20);
    auto pause = std::chrono::microseconds(20);
    while (true) {
      bool done = false;
      if (test_each(reqs, &done) != MPI_SUCCESS) return false;
      if (done) return true;
      const auto now = clock::now();
      if (now >= deadline) return false;
      if (now >= next_ask) {
        if (give_up()) return false;
        next_ask = now + std::chrono::milliseconds(20);
      }
      std::this_thread::sleep_for(pause);
      if (pause < std::chrono::milliseconds(1)) pause *= 2;
    }
  }

  // True when rank r ran on this host and its process no longer runs (exited, or a zombie).
  bool process_gone(int r) const {
    const Peer& p = peers_[static_cast<size_t>(r)];
    char host[sizeof p.host] = {};
    gethostname(host, sizeof host - 1);
    if (std::strncmp(host, p.host, sizeof host) != 0 || p.pid <= 0) return false;
    std::ifstream stat("/proc/" + std::to_string(p.pid) + "/stat");
    std::string pid, comm, state;
    if (!(stat >> pid >> comm >> state)) return true;
    return state == "Z" || state == "X";
  }

  Status fail(Status s, std::vector<int> missing) {
    failed_ = true;
    lost_ = std::move(missing);
    failure_ = s;
    return s;
  }

  struct Peer {
    char host[64];
    int pid;
  };

  MPI_Comm comm_;
  bool world_;
  int threads_;
  int rank_ = 0;
  int size_ = 1;
  std::vector<Peer> peers_;
  uint64_t seq_ = 0;
  Status failure_;
};

}  // namespace

Status make_mpi_comm(int* argc, char*** argv, bool threads_at_once, std::unique_ptr<Comm>* out) {
  int provided = 0;
  // MPI_THREAD_MULTIPLE puts a lock on every message; only a suite whose phases run at once asks for it.
  int rc = MPI_Init_thread(argc, argv, threads_at_once ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, &provided);
  if (rc != MPI_SUCCESS) return mpi_status("MPI_Init_thread", rc);
  *out = std::make_unique<MpiComm>(provided);
  return Status::Ok();
}

}  // namespace iofab
