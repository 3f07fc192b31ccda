#include "workloads/metadata/metadata_phase.h"

#include <algorithm>

#include "harness/comm/rank_gather.h"
#include "harness/core/checked_math.h"
#include "harness/engines/engine_choice.h"
#include "harness/engines/io_driver.h"
#include "harness/fs/mountstats.h"
#include "harness/phase/params.h"
#include "harness/phase/request_metrics.h"
#include "harness/store/store_folder.h"
#include "workloads/metadata/metadata_claims.h"
#include "workloads/metadata/metadata_ops.h"
#include "workloads/metadata/metadata_params.h"
#include "workloads/metadata/metadata_results.h"
#include "workloads/metadata/metadata_tally.h"

namespace iofab {
namespace {

using nlohmann::json;

// What a rank sends rank 0: a tally per timed step, in run order, how it ended, and its store's request
// figures (null where the store sends none).
struct RankSteps {
  std::vector<MdTally> steps;
  Status status;
  json requests;
  static constexpr auto wire_fields() {
    return std::tuple{wire_field("steps", &RankSteps::steps), wire_field("status", &RankSteps::status),
                      wire_field("requests", &RankSteps::requests)};
  }
};

class MetadataPhase final : public Phase {
 public:
  explicit MetadataPhase(MetadataParams p) : p_(std::move(p)) {}

  std::optional<uint64_t> planned_bytes(int ranks) const override {
    // A block a file at least (an inode and its first block), and the file's bytes rounded up to blocks.
    const uint64_t per_file = (p_.file_size + 4095) / 4096 * 4096 + 4096;
    return checked_product({static_cast<uint64_t>(ranks), p_.files_per_rank, per_file});
  }

  // On an object store the phase runs create, stat, read, list and remove; a suite that asks for none of them
  // there is refused, as is fsync: a PUT is durable once answered, with nothing to fsync.
  Status check_on_object_store() const override { return check_metadata_on_object_store(p_); }
  size_t longest_path_bytes(int ranks) const override { return MetadataPlan(p_, ranks).longest_path_bytes(); }

  Status run(PhaseContext& ctx, PhaseResult* result) override;

 private:
  // Runs op over items [0, n) split across the workers, each timed; the first failure stops its worker.
  Status run_items(PhaseContext& ctx, uint64_t n, const MdItemOp& op, MdTally* out) const;
  // One step on this rank; *timed: whether its figures count (false: setup or cleanup).
  Status run_step(PhaseContext& ctx, const MetadataPlan& plan, MdStep step, bool renamed, MdTally* out);
  Status make_tree(PhaseContext& ctx, const MetadataPlan& plan, MdTally* out) const;
  Status remove_tree_folders(PhaseContext& ctx, const MetadataPlan& plan, MdTally* out) const;
  // One MdFileOps a worker.
  Status make_ops(PhaseContext& ctx);
  // The steps in order from st (not ok: stop at the first); *steps the chosen ones that ran, timed[k] each's.
  // What comes before each chosen step since start (or the previous chosen one's end), the untimed steps
  // among it, goes to result's setup.
  Status run_steps(PhaseContext& ctx, const MetadataPlan& plan, Status st, uint64_t start,
                   PhaseResult* result, std::vector<MdStep>* steps, std::vector<MdTally>* timed);
  // The leaf folder of owner's file i, held open while the worker stays in it.
  Status leaf_folder(PhaseContext& ctx, const MetadataPlan& plan, int owner, uint64_t i,
                     std::unique_ptr<StoreFolder>* held, size_t* held_leaf) const;
  bool selected(MdStep s) const { return std::find(p_.steps.begin(), p_.steps.end(), s) != p_.steps.end(); }
  // A step not chosen still runs, untimed: mkdir makes the tree every other step works in; remove and rmdir
  // leave nothing behind unless --keep.
  bool needed_unchosen(MdStep s, bool keep) const {
    if (s == MdStep::kMkdir) return true;
    if (s == MdStep::kRemove) return !keep && selected(MdStep::kCreate);
    return s == MdStep::kRmdir && !keep;
  }

  MetadataParams p_;
  std::vector<std::unique_ptr<MdFileOps>> ops_;  // one per worker
  uint64_t made_ = 0;  // the files each rank made: files_per_rank, or fewer when a stonewall ended create
};

std::string tree_path(const PhaseContext& ctx, const MetadataPlan& plan, int owner, std::string_view sub) {
  const std::string root = join_store_path(ctx.phase_name, plan.tree_root(owner));
  return sub.empty() ? root : join_store_path(root, sub);
}

Status MetadataPhase::run_items(PhaseContext& ctx, uint64_t n, const MdItemOp& op, MdTally* out) const {
  const unsigned workers = static_cast<unsigned>(std::min<uint64_t>(p_.workers, std::max<uint64_t>(n, 1)));
  return run_split_items(ctx.stop, workers, n, op, out);
}

Status MetadataPhase::leaf_folder(PhaseContext& ctx, const MetadataPlan& plan, int owner, uint64_t i,
                                  std::unique_ptr<StoreFolder>* held, size_t* held_leaf) const {
  const size_t leaf = plan.leaf_of(i);
  if (*held != nullptr && *held_leaf == leaf) return Status::Ok();
  held->reset();
  *held_leaf = leaf;
  return ctx.store->open_folder(tree_path(ctx, plan, owner, plan.leaves()[leaf]), held);
}

Status MetadataPhase::make_tree(PhaseContext& ctx, const MetadataPlan& plan, MdTally* out) const {
  const int rank = ctx.comm.rank();
  if (plan.folders_made_by(rank) == 0) return Status::Ok();
  const std::string root = tree_path(ctx, plan, rank, "");
  Status s = run_items(
      ctx, 1, [&](unsigned, uint64_t) { return ctx.store->make_folder(root); }, out);
  for (const auto& level : plan.levels()) {
    if (!s.ok()) break;
    s = run_items(
        ctx, level.size(),
        [&](unsigned, uint64_t k) { return ctx.store->make_folder(join_store_path(root, level[k])); }, out);
  }
  return s;
}

Status MetadataPhase::remove_tree_folders(PhaseContext& ctx, const MetadataPlan& plan, MdTally* out) const {
  const int rank = ctx.comm.rank();
  if (plan.folders_made_by(rank) == 0) return Status::Ok();
  const std::string root = tree_path(ctx, plan, rank, "");
  Status s;
  for (auto level = plan.levels().rbegin(); level != plan.levels().rend() && s.ok(); ++level) {
    s = run_items(
        ctx, level->size(),
        [&](unsigned, uint64_t k) { return ctx.store->remove(join_store_path(root, (*level)[k])); }, out);
  }
  if (s.ok())
    s = run_items(
        ctx, 1, [&](unsigned, uint64_t) { return ctx.store->remove(root); }, out);
  return s;
}

Status MetadataPhase::run_step(PhaseContext& ctx, const MetadataPlan& plan, MdStep step, bool renamed,
                               MdTally* out) {
  const int rank = ctx.comm.rank();
  const int owner = plan.owner_for(rank, step);
  if (step == MdStep::kMkdir) return make_tree(ctx, plan, out);
  if (step == MdStep::kRmdir) return remove_tree_folders(ctx, plan, out);
  if (step == MdStep::kList) {
    const uint64_t ranks_in_leaf = p_.shared_folder ? static_cast<uint64_t>(plan.ranks()) : 1;
    MdTally entries;
    Status s = run_items(
        ctx, plan.leaves().size(),
        [&](unsigned, uint64_t k) -> Status {
          std::unique_ptr<StoreFolder> f;
          std::vector<std::string> names;
          const std::string path = tree_path(ctx, plan, owner, plan.leaves()[k]);
          Status ls = ctx.store->open_folder(path, &f);
          if (ls.ok()) ls = f->list(&names);
          if (!ls.ok()) return ls;
          const uint64_t expected = plan.files_in_leaf(k, made_) * ranks_in_leaf;
          if (names.size() != expected) {
            return Status::IoError("list " + path + ": " + std::to_string(names.size()) +
                                   " entries, expected " + std::to_string(expected));
          }
          return Status::Ok();
        },
        &entries);
    // The rate counts entries listed, as a loader's listing of a dataset does; latency stays per folder.
    entries.ops = s.ok() ? plan.entries_listed(made_) : 0;
    out->merge(entries);
    return s;
  }
  std::vector<std::unique_ptr<StoreFolder>> held(p_.workers);
  std::vector<size_t> held_leaf(p_.workers, 0);
  const MdItemOp op = [&](unsigned w, uint64_t i) -> Status {
    if (Status s = leaf_folder(ctx, plan, owner, i, &held[w], &held_leaf[w]); !s.ok()) return s;
    StoreFolder& f = *held[w];
    const std::string name = MetadataPlan::file_name(owner, i, renamed);
    switch (step) {
      case MdStep::kCreate:
        return ops_[w]->create(f, name, owner, i);
      case MdStep::kStat:
        return ops_[w]->stat(f, name);
      case MdStep::kOpen:
        return ops_[w]->open(f, name);
      case MdStep::kRead:
        return ops_[w]->read(f, name, owner, i);
      case MdStep::kRename:
        return f.rename(name, MetadataPlan::file_name(owner, i, true));
      case MdStep::kRemove:
        return f.remove(name);
      default:
        return Status::Internal("metadata: no file operation for this step");
    }
  };
  if (step == MdStep::kCreate && p_.stonewall > 0) {
    return create_until_stonewall(ctx.comm, ctx.stop, p_.workers, p_.files_per_rank, p_.stonewall, op, out,
                                  &made_);
  }
  return run_items(ctx, made_, op, out);
}

Status MetadataPhase::make_ops(PhaseContext& ctx) {
  // An object store's calls go through the Store by path, a request each; files with descriptors through an
  // engine when they hold bytes or are fsynced.
  Store* objects = ctx.store->caps().folders ? nullptr : ctx.store;
  for (unsigned w = 0; w < p_.workers; ++w) {
    std::unique_ptr<Engine> engine;
    if (objects == nullptr && (p_.file_size > 0 || p_.fsync)) {
      std::string name;
      Status st = engine_for_store(*ctx.store, "psync", &name);
      if (st.ok()) st = make_phase_engine(ctx, name, EngineOptions{}, &engine);
      if (!st.ok()) return st;
    }
    ops_.push_back(std::make_unique<MdFileOps>(p_, std::move(engine), objects));
  }
  return Status::Ok();
}

Status MetadataPhase::run_steps(PhaseContext& ctx, const MetadataPlan& plan, Status st, uint64_t start,
                                PhaseResult* result, std::vector<MdStep>* steps,
                                std::vector<MdTally>* timed) {
  // Every step in order: the chosen ones timed, the rest run untimed where later ones need them (the tree and
  // the files) or to leave nothing behind (remove, rmdir); on an object store the steps it cannot do are
  // left out. Ranks agree after each: one failure stops all.
  const bool objects = !ctx.store->caps().folders;
  bool renamed = false;
  for (const MdStepInfo& info : md_steps()) {
    const bool chosen = selected(info.step);
    if (!chosen && !needed_unchosen(info.step, ctx.keep)) continue;
    if (objects && !info.object_store_skip.empty()) continue;
    st.update(ctx.comm.barrier());
    if (chosen) add_setup(result, start, now_ns());
    MdTally t;
    if (st.ok()) st = run_step(ctx, plan, info.step, renamed, &t);
    if (chosen) start = now_ns();
    std::vector<double> failed;
    st.update(ctx.comm.all_gather(st.ok() ? 0.0 : 1.0, &failed));
    if (chosen) {
      steps->push_back(info.step);
      timed->push_back(std::move(t));
    }
    if (st.ok() && std::any_of(failed.begin(), failed.end(), [](double f) { return f != 0; })) {
      st = Status::IoError("metadata: another rank failed in step " + std::string(info.name));
    }
    if (!st.ok()) break;
    if (info.step == MdStep::kRename) renamed = true;
  }
  return st;
}

Status MetadataPhase::run(PhaseContext& ctx, PhaseResult* result) {
  const uint64_t start = now_ns();
  const int rank = ctx.comm.rank();
  const MetadataPlan plan(p_, ctx.comm.size());
  made_ = p_.files_per_rank;
  // The runner refuses this before anything is written; a phase run on its own refuses it here.
  if (!ctx.store->caps().folders) {
    if (Status s = check_on_object_store(); !s.ok()) return s;
  }
  Status st = make_ops(ctx);
  if (st.ok() && rank == 0) st = ctx.store->make_folder(ctx.phase_name);
  const std::optional<NfsOpCounts> nfs_before =
      rank == 0 ? read_nfs_op_counts(ctx.target.mount_point) : std::nullopt;
  std::vector<MdStep> steps;
  std::vector<MdTally> timed;
  // A rank that failed to start still meets the others at the first step, where they all stop.
  st = run_steps(ctx, plan, st, start, result, &steps, &timed);
  const std::optional<NfsOpCounts> nfs_after =
      rank == 0 ? read_nfs_op_counts(ctx.target.mount_point) : std::nullopt;
  ops_.clear();
  // The steps' requests only: the cleanup's below are not the phase's work.
  const json requests = take_request_stats_json(*ctx.store);
  // A failure, a stop or --keep left files: a failed or stopped phase leaves nothing; --keep keeps them.
  st.update(ctx.comm.barrier());
  if (rank == 0 && (!st.ok() || !ctx.keep)) st.update(ctx.store->remove_tree(ctx.phase_name));

  std::vector<MdTally> total(timed.size());
  std::vector<json> rank_requests;
  Status worst = st;
  Status g = gather_fold_to_root(ctx.comm, RankSteps{timed, st, requests}, [&](size_t r, RankSteps&& one) {
    for (size_t k = 0; k < total.size() && k < one.steps.size(); ++k) total[k].merge(one.steps[k]);
    rank_requests.push_back(std::move(one.requests));
    if (worst.ok() && !one.status.ok()) {
      worst = Status::FromCode(one.status.code(), "rank " + std::to_string(r) + ": " + one.status.message());
    }
  });
  if (!g.ok()) return g;
  if (rank != 0) return st;
  put_metadata_results(p_, plan, made_, steps, total, result);
  if (RequestStats req; merge_request_stats(rank_requests, &req)) {
    uint64_t ns = 0;
    for (const MdTally& t : total) ns += t.ns;
    put_request_metrics(req, static_cast<double>(ns) * 1e-9, result);
  }
  if (!ctx.store->caps().folders) put_object_store_skips(p_.steps, result);
  if (nfs_before && nfs_after) put_nfs_op_counts(*nfs_before, *nfs_after, result);
  return worst;
}

}  // namespace

std::unique_ptr<Phase> parse_metadata(ParamReader& r) {
  return std::make_unique<MetadataPhase>(read_metadata_params(r));
}

const std::vector<MetricInfo>& metadata_metrics() {
  static const std::vector<MetricInfo> kMetrics = metadata_metric_table();
  return kMetrics;
}

}  // namespace iofab
