// An in-process control plane for tests: N ranks as N threads, each with
// its own Comm, meeting in a shared Hub. Collective calls match up by
// their order on each rank, as MPI's do.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness/comm/comm.h"

namespace iofab::testing {

class ThreadCommHub {
 public:
  explicit ThreadCommHub(int ranks) : ranks_(ranks), slots_(static_cast<size_t>(ranks)) {}

  // Every rank puts its string in; every rank gets all of them, in rank order.
  std::vector<std::string> exchange(int rank, const std::string& mine) {
    std::unique_lock<std::mutex> lock(mu_);
    const uint64_t round = round_;
    slots_[static_cast<size_t>(rank)] = mine;
    if (++arrived_ == ranks_) {
      result_ = slots_;
      arrived_ = 0;
      ++round_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return round_ != round; });
    }
    return result_;
  }

 private:
  int ranks_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> slots_;
  std::vector<std::string> result_;
  int arrived_ = 0;
  uint64_t round_ = 0;
};

class ThreadComm final : public Comm {
 public:
  ThreadComm(ThreadCommHub& hub, int rank, int size) : hub_(hub), rank_(rank), size_(size) {}
  std::string_view name() const override { return "threads"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Status barrier() override {
    hub_.exchange(rank_, "");
    return Status::Ok();
  }
  Status broadcast(std::string* s, int root) override {
    *s = hub_.exchange(rank_, *s)[static_cast<size_t>(root)];
    return Status::Ok();
  }
  Status gather(const std::string& mine, std::vector<std::string>* all, int root) override {
    auto v = hub_.exchange(rank_, mine);
    if (rank_ == root) {
      *all = std::move(v);
    } else {
      all->clear();
    }
    return Status::Ok();
  }
  Status all_gather(double mine, std::vector<double>* all) override {
    all->clear();
    for (const auto& s : hub_.exchange(rank_, std::to_string(mine))) all->push_back(std::stod(s));
    return Status::Ok();
  }
  void abort(int) override {}

 private:
  ThreadCommHub& hub_;
  int rank_;
  int size_;
};

// Runs body(comm) on `ranks` threads at once and joins them.
inline void run_ranks(int ranks, const std::function<void(Comm&)>& body) {
  ThreadCommHub hub(ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      ThreadComm comm(hub, r, ranks);
      body(comm);
    });
  }
  for (auto& t : threads) t.join();
}

}  // namespace iofab::testing
