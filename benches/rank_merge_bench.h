// What rank_merge_bench's files share: the synthetic ranks, the Comm that replays them to rank 0, and
// the measurement of one phase's merge. (Two files, as train_read's and checkpoint's headers cannot
// meet in one: each names its own kManifestName.)
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/comm/comm.h"
#include "harness/phase/phase.h"
#include "harness/results/report.h"
#include "harness/stats/io_tally.h"

namespace iofab {

using Clock = std::chrono::steady_clock;

constexpr int kRanksPerHost = 8;
constexpr uint64_t kSeriesInterval = 100'000'000;
constexpr size_t kSeriesIntervals = 600;

// "node<rank / kRanksPerHost>".
std::string host_name(int rank);
// A rank's tally: ~300 latency buckets around 2 ms (lognormal), a 600-interval series, its own bytes.
IoTally synthetic_tally(int rank);

// This thread's CPU seconds: the merge's cost on a machine whose cores other work shares.
double thread_cpu_seconds();

// Rank 0 of `ranks`: its gathers return its own answer and, for every other rank, what make(rank,
// mine) gives; barriers and broadcasts pass; an all_gather of a double returns it from every rank.
// The merge is timed from the moment the gather's texts exist (as MPI_Gatherv would leave them).
class ReplayComm final : public Comm {
 public:
  using Maker = std::function<std::string(int rank, const std::string& mine)>;
  ReplayComm(int ranks, Maker make) : ranks_(ranks), make_(std::move(make)) {}
  std::string_view name() const override { return "replay"; }
  int rank() const override { return 0; }
  int size() const override { return ranks_; }
  Status barrier() override { return Status::Ok(); }
  Status broadcast(std::string*, int) override { return Status::Ok(); }
  Status gather(const std::string& mine, std::vector<std::string>* all, int) override {
    all->assign(1, mine);
    all->reserve(static_cast<size_t>(ranks_));
    for (int r = 1; r < ranks_; ++r) all->push_back(make_(r, mine));
    received_bytes_ = 0;
    for (const auto& t : *all) received_bytes_ += static_cast<double>(t.size());
    gathered_at_ = Clock::now();
    gathered_cpu_ = thread_cpu_seconds();
    return Status::Ok();
  }
  Status all_gather(double mine, std::vector<double>* all) override {
    all->assign(static_cast<size_t>(ranks_), mine);
    return Status::Ok();
  }
  void abort(int) override {}
  Clock::time_point gathered_at() const { return gathered_at_; }
  double gathered_cpu() const { return gathered_cpu_; }
  // The last gather's texts, every rank's, in bytes.
  double received_bytes() const { return received_bytes_; }

 private:
  int ranks_;
  Maker make_;
  Clock::time_point gathered_at_ = Clock::now();
  double gathered_cpu_ = thread_cpu_seconds();
  double received_bytes_ = 0;
};

struct Measured {
  std::string phase;
  double seconds = 0;      // from the gather's texts to the merged PhaseResult, wall clock
  double cpu_seconds = 0;  // the same span in this thread's CPU time
  double wire_bytes = 0;   // what one rank sent rank 0 (the mean over ranks)
  double peak_bytes = 0;   // the heap's peak above its level before the gather, received texts included
  PhaseReport report;
};

// Runs merge (which gathers through comm) and measures it.
Measured measure(const std::string& phase, ReplayComm& comm, const std::function<PhaseResult()>& merge);

// rank_merge_train_read.cc
Measured train_read(int ranks);

}  // namespace iofab
