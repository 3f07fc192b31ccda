// Committing a checkpoint across ranks: every rank sends rank 0 the shards
// its writers wrote (name, bytes, xxh3); rank 0 checks that every shard of
// the step is there, writes the manifest and commits the step folder
// (phase_folder.h), and every rank gets the outcome. Then rank 0 removes the
// checkpoints beyond `keep`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "harness/phase/phase.h"
#include "workloads/checkpoint/manifest.h"
#include "workloads/checkpoint/params.h"
#include "workloads/checkpoint/shard_layout.h"
#include "workloads/checkpoint/writer.h"

namespace iofab {

// What rank 0 did to commit one checkpoint.
struct CommitRecord {
  uint64_t step = 0;
  uint64_t commit_ns = 0;  // manifest + fsyncs + rename
  uint64_t delete_ns = 0;  // removing checkpoints beyond keep
  uint64_t deleted = 0;
  bool overran = false;  // async: it was still draining when the next one was due
};

// The manifest of step: shards sorted by name, the run's sizes and, for a model's layout, every
// file's planned rank and tensor records.
Manifest make_manifest(const CheckpointParams& p, const ShardLayout& l, uint64_t step,
                       const std::string& phase_name, std::vector<ShardEntry> shards);

// Collective: called by every rank after its writers finished step, with
// local their outcome; the step goes below ctx.phase_name in ctx.store.
// Returns the step's outcome, the same on every rank.
Status collect_and_commit(PhaseContext& ctx, const CheckpointParams& p, uint64_t step, const ShardLayout& l,
                          const std::vector<Writer>& writers, const Status& local, CommitRecord* rec);
// Rank 0, after a commit: removes the checkpoints in ctx.store below ctx.phase_name beyond keep,
// timed into rec.
Status rotate_after_commit(PhaseContext& ctx, unsigned keep, CommitRecord* rec);

}  // namespace iofab
