#include "workloads/checkpoint/commit.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/comm/rank_gather.h"
#include "harness/core/wall_clock.h"
#include "harness/engines/io_pump.h"
#include "workloads/checkpoint/manifest.h"
#include "workloads/checkpoint/phase_folder.h"

namespace iofab {
namespace {

using nlohmann::json;

// One shard a writer wrote; rank 0 knows the rank from who sent it. A type of this file, so the
// wire's templates find its to_wire and from_wire by argument-dependent lookup.
struct WrittenShard {
  std::string name;
  uint64_t bytes = 0;
  uint64_t xxh3 = 0;
  int worker = -1;
  static constexpr auto wire_fields() {
    using S = WrittenShard;
    return std::tuple{wire_field("name", &S::name), wire_field("bytes", &S::bytes), wire_field("xxh3", &S::xxh3),
                      wire_field("worker", &S::worker)};
  }
};

// What one rank sends rank 0 after a step: its writers' outcome and the shards they wrote.
struct RankShards {
  Status status;
  std::vector<WrittenShard> shards;
  static constexpr auto wire_fields() {
    return std::tuple{wire_field("status", &RankShards::status), wire_field("shards", &RankShards::shards)};
  }
};

RankShards local_shards(const std::vector<Writer>& writers, const ShardLayout& l, const Status& local) {
  RankShards mine{local, {}};
  for (unsigned w = 0; w < writers.size(); ++w) {
    for (const ShardResult& r : writers[w].written)
      mine.shards.push_back({l.name_of(r.shard), r.bytes, r.xxh3, static_cast<int>(w)});
  }
  return mine;
}

// Rank 0: every rank's shards, checked and committed when whole.
Status commit_gathered(PhaseContext& ctx, const CheckpointParams& p, uint64_t step, const ShardLayout& l,
                       const std::vector<std::string>& texts, CommitRecord* rec) {
  std::vector<RankShards> all;
  Status worst = decode_ranks(texts, &all, "checkpoint result");
  if (!worst.ok()) return worst;
  std::vector<ShardEntry> entries;
  for (size_t r = 0; r < all.size(); ++r) {
    if (!all[r].status.ok()) {
      const std::string who = all.size() > 1 ? "rank " + std::to_string(r) + ": " : "";
      keep_worst(&worst, Status::FromCode(all[r].status.code(), who + all[r].status.message()));
    }
    for (WrittenShard& e : all[r].shards) {
      ShardEntry entry;
      entry.name = std::move(e.name);
      entry.bytes = e.bytes;
      entry.xxh3 = e.xxh3;
      entry.rank = static_cast<int>(r);
      entry.worker = e.worker;
      entries.push_back(std::move(entry));
    }
  }
  if (worst.ok() && entries.size() != l.shards) {
    worst = Status::Internal("step " + std::to_string(step) + ": " + std::to_string(entries.size()) +
                             " shards written, expected " + std::to_string(l.shards));
  }
  if (worst.ok()) {
    const uint64_t c0 = now_ns();
    worst = commit_step_folder(*ctx.store, ctx.phase_name,
                               make_manifest(p, l, step, ctx.phase_name, std::move(entries)), p.commit);
    rec->commit_ns = now_ns() - c0;
  }
  return worst;
}

}  // namespace

Manifest make_manifest(const CheckpointParams& p, const ShardLayout& l, uint64_t step,
                       const std::string& phase_name, std::vector<ShardEntry> shards) {
  std::sort(shards.begin(), shards.end(),
            [](const ShardEntry& a, const ShardEntry& b) { return a.name < b.name; });
  Manifest m;
  m.step = step;
  m.phase = phase_name;
  m.created = rfc3339_utc_now();
  m.committed_unix_ns = unix_ns_now();
  m.full_checkpoint_bytes = p.full_bytes;
  m.scale = p.scale;
  m.shards = std::move(shards);
  m.layout = p.layout;
  m.pad_to = p.dcp_metadata_bytes;
  if (!l.files.empty()) {
    m.model = p.model;
    m.replica_writer = replica_writer_name(p.replica_writer);
    m.seed = p.seed;
    m.reduce = p.reduce;
    std::map<std::string_view, const PlannedFile*> by_name;
    for (const PlannedFile& f : l.files) by_name[f.path] = &f;
    for (ShardEntry& e : m.shards) {
      const auto it = by_name.find(e.name);
      if (it == by_name.end()) continue;
      e.plan_rank = static_cast<int64_t>(it->second->plan_rank);
      e.records = it->second->records;
    }
  }
  return m;
}

Status collect_and_commit(PhaseContext& ctx, const CheckpointParams& p, uint64_t step, const ShardLayout& l,
                          const std::vector<Writer>& writers, const Status& local, CommitRecord* rec) {
  // The texts, not gather_to_root: a malformed answer must still reach the broadcast below as the
  // step's outcome, or the other ranks would wait for it.
  std::vector<std::string> texts;
  Status g = ctx.comm.gather(wire_bytes(to_wire(local_shards(writers, l, local))), &texts, 0);
  if (!g.ok()) return g;
  Status outcome;
  if (ctx.comm.rank() == 0) outcome = commit_gathered(ctx, p, step, l, texts, rec);
  Status b = broadcast_value(ctx.comm, &outcome, 0, "commit outcome");
  if (!b.ok()) return b;
  rec->step = step;
  return outcome;
}

Status rotate_after_commit(PhaseContext& ctx, unsigned keep, CommitRecord* rec) {
  const uint64_t d0 = now_ns();
  Status s = rotate_steps(*ctx.store, ctx.phase_name, keep, &rec->deleted);
  rec->delete_ns = now_ns() - d0;
  return s;
}

}  // namespace iofab
