// rank_merge_bench: train_read's merge (summarize_train_read) over synthetic ranks, each with two
// epochs of reads (a tally each) and a host of its own.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "benches/rank_merge_bench.h"
#include "harness/comm/rank_gather.h"
#include "harness/core/json_text.h"
#include "workloads/dataset/dataset.h"
#include "workloads/train_read/train_read_phase.h"
#include "workloads/train_read/train_read_results.h"

namespace iofab {

using nlohmann::json;

Measured train_read(int ranks) {
  ReplayComm comm(ranks, [](int rank, const std::string& mine) {
    json j;
    wire_decode(mine, &j);
    j["host"] = host_name(rank);
    for (auto& e : j["epochs"]) e["stats"]["reads"] = synthetic_tally(rank).to_wire();
    return wire_bytes(j);
  });
  TrainReadParams p;
  p.dataset.num_samples = static_cast<uint64_t>(ranks) * 64;
  p.dataset.sample_size = 4096;
  p.dataset.samples_per_shard = 1024;
  p.epochs = 2;
  const DatasetLayout layout(p.dataset);
  RankReport mine;
  mine.host = host_name(0);
  mine.engine = "psync";
  mine.verified = true;
  for (uint64_t e = 0; e < p.epochs; ++e) {
    EpochRecord rec;
    rec.epoch = e;
    rec.ok = true;
    rec.stats = EpochStats(kSeriesInterval);
    rec.stats.reads = synthetic_tally(0);
    rec.stats.batches = 2;
    rec.stats.compute_ns = 50'000'000'000ULL;
    rec.stats.wall_ns = 55'000'000'000ULL;
    rec.stats.id_count = 64;
    rec.stats.batch_wait.record_n(1'000'000, 2);
    mine.epochs.push_back(rec);
  }
  return measure("train_read", comm, [&] {
    PhaseResult result;
    std::vector<RankReport> all;
    if (Status g = gather_to_root(comm, mine, &all); !g.ok())
      std::fprintf(stderr, "train_read: %s\n", g.message().c_str());
    Status worst;
    summarize_train_read(p, all, layout, &result, &worst);
    return result;
  });
}

}  // namespace iofab
