#include "workloads/checkpoint/commit.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/engines/io_pump.h"
#include "workloads/checkpoint/manifest.h"
#include "workloads/checkpoint/phase_folder.h"

namespace iofab {
namespace {

using nlohmann::json;

std::string rfc3339_utc_now() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

uint64_t unix_ns_now() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

Manifest make_manifest(const CheckpointParams& p, uint64_t step, const std::string& phase_name,
                       std::vector<ShardEntry> shards) {
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
  return m;
}

Status status_from(const json& j, const std::string& prefix) {
  return Status::FromCode(static_cast<Status::Code>(j["code"].get<int>()),
                          prefix + j["error"].get<std::string>());
}

// What this rank sends rank 0: its writers' outcome and shards.
json local_shards(const std::vector<Writer>& writers, const Status& local) {
  json mine = {{"error", local.ok() ? "" : local.message()}, {"code", static_cast<int>(local.code())}};
  json shards = json::array();
  for (unsigned w = 0; w < writers.size(); ++w) {
    const Writer& wk = writers[w];
    if (!wk.active) continue;
    shards.push_back({{"name", wk.file}, {"bytes", wk.bytes}, {"xxh3", wk.xxh3}, {"worker", w}});
  }
  mine["shards"] = shards;
  return mine;
}

// Rank 0: every rank's shards, checked and committed when whole.
Status commit_gathered(PhaseContext& ctx, const CheckpointParams& p, int phase_fd, uint64_t step,
                       const ShardLayout& l, const std::vector<std::string>& all, CommitRecord* rec) {
  Status worst;
  std::vector<ShardEntry> entries;
  for (size_t r = 0; r < all.size(); ++r) {
    json j = json::parse(all[r], nullptr, false);
    if (j.is_discarded() || !j.contains("shards")) {
      keep_worst(&worst, Status::Internal("rank " + std::to_string(r) + " sent a bad checkpoint result"));
      continue;
    }
    if (!j["error"].get<std::string>().empty()) {
      const std::string who = all.size() > 1 ? "rank " + std::to_string(r) + ": " : "";
      keep_worst(&worst, status_from(j, who));
    }
    for (const auto& e : j["shards"]) {
      entries.push_back({e["name"].get<std::string>(), e["bytes"].get<uint64_t>(), e["xxh3"].get<uint64_t>(),
                         static_cast<int>(r), e["worker"].get<int>()});
    }
  }
  if (worst.ok() && entries.size() != l.shards) {
    worst = Status::Internal("step " + std::to_string(step) + ": " + std::to_string(entries.size()) +
                             " shards written, expected " + std::to_string(l.shards));
  }
  if (worst.ok()) {
    const uint64_t c0 = now_ns();
    worst = commit_step_folder(phase_fd, ctx.phase_name,
                               make_manifest(p, step, ctx.phase_name, std::move(entries)));
    rec->commit_ns = now_ns() - c0;
  }
  return worst;
}

}  // namespace

Status collect_and_commit(PhaseContext& ctx, const CheckpointParams& p, int phase_fd, uint64_t step,
                          const ShardLayout& l, const std::vector<Writer>& writers, const Status& local,
                          CommitRecord* rec) {
  std::vector<std::string> all;
  Status g = ctx.comm.gather(local_shards(writers, local).dump(), &all, 0);
  if (!g.ok()) return g;
  std::string outcome;
  if (ctx.comm.rank() == 0) {
    const Status worst = commit_gathered(ctx, p, phase_fd, step, l, all, rec);
    outcome =
        json({{"error", worst.ok() ? "" : worst.message()}, {"code", static_cast<int>(worst.code())}}).dump();
  }
  Status b = ctx.comm.broadcast(&outcome, 0);
  if (!b.ok()) return b;
  json o = json::parse(outcome, nullptr, false);
  if (o.is_discarded()) return Status::Internal("bad commit outcome from rank 0");
  Status st = status_from(o, "");
  rec->step = step;
  return st;
}

Status rotate_after_commit(int phase_fd, unsigned keep, CommitRecord* rec) {
  const uint64_t d0 = now_ns();
  Status s = rotate_steps(phase_fd, keep, &rec->deleted);
  rec->delete_ns = now_ns() - d0;
  return s;
}

}  // namespace iofab
