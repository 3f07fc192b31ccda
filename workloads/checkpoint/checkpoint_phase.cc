#include "workloads/checkpoint/checkpoint_phase.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "harness/comm/agree.h"
#include "harness/comm/rank_gather.h"
#include "harness/core/checked_math.h"
#include "harness/engines/io_driver.h"
#include "harness/phase/io_params.h"
#include "harness/phase/params.h"
#include "harness/phase/reducibility_params.h"
#include "harness/phase/request_metrics.h"
#include "harness/phase/worker_group.h"
#include "workloads/checkpoint/bursts.h"
#include "workloads/checkpoint/dcp_metadata.h"
#include "workloads/checkpoint/folder_layout.h"
#include "workloads/checkpoint/model_param.h"
#include "workloads/checkpoint/params.h"
#include "workloads/checkpoint/phase_folder.h"
#include "workloads/checkpoint/placement.h"
#include "workloads/checkpoint/presets.h"
#include "workloads/checkpoint/results.h"
#include "workloads/checkpoint/shard_layout.h"
#include "workloads/checkpoint/tensor_plan.h"
#include "workloads/checkpoint/tier_local.h"
#include "workloads/checkpoint/tier_params.h"
#include "workloads/checkpoint/tier_recovery.h"
#include "workloads/checkpoint/writer.h"

namespace iofab {
namespace {

class CheckpointPhase final : public Phase {
 public:
  explicit CheckpointPhase(CheckpointParams p) : p_(std::move(p)) {}

  std::optional<uint64_t> planned_bytes(int ranks) const override {
    // At the peak, `keep` committed checkpoints and the one being written.
    const ShardLayout l = layout(ranks);
    if (!l.sizes.empty()) return checked_product({static_cast<uint64_t>(p_.keep) + 1, l.checkpoint_bytes()});
    return checked_product({static_cast<uint64_t>(p_.keep) + 1, l.shards, l.shard_bytes});
  }
  // The newest `keep` checkpoints stay for a restore phase until the run ends.
  std::optional<uint64_t> retained_bytes(int ranks) const override {
    const ShardLayout l = layout(ranks);
    if (!l.sizes.empty()) return checked_product({static_cast<uint64_t>(p_.keep), l.checkpoint_bytes()});
    return checked_product({static_cast<uint64_t>(p_.keep), l.shards, l.shard_bytes});
  }

  // step-<count>.tmp/ and the longest shard name (a name grows with its numbers), or the tracker at the
  // phase folder's root (megatron).
  size_t longest_path_bytes(int ranks) const override {
    const ShardLayout l = layout(ranks);
    size_t name = std::max(kCheckpointManifestName.size(), kDcpMetadataName.size()) + 4;  // ".tmp" while written
    if (l.files.empty() && l.shards > 0) name = std::max(name, l.name_of(l.shards - 1).size());
    for (const PlannedFile& f : l.files) name = std::max(name, f.path.size());
    const size_t in_step = step_tmp_name(p_.count).size() + 1 + name;
    return p_.layout == CheckpointLayoutKind::kMegatron ? std::max(in_step, kMegatronTrackerName.size() + 4)
                                                        : in_step;
  }

  Status run(PhaseContext& ctx, PhaseResult* result) override;

 private:
  ShardLayout layout(int ranks) const {
    if (p_.files) return file_shard_layout(*p_.files);
    if (!p_.plan_rank_bytes.empty()) {
      return plan_shard_layout(p_.plan_rank_bytes, p_.scale, ranks, p_.workers, p_.direct);
    }
    return shard_layout(p_.full_bytes, p_.scale, ranks, p_.workers, p_.writer_fraction);
  }
  // This rank's writers, one per worker, placed on their shards.
  std::vector<Writer> place_writers(PhaseContext& ctx, const ShardLayout& l) const;
  // Rank 0 clears what an interrupted run left and numbers the steps after
  // any committed one; *st gets its folder's failure. Returns the collective's outcome.
  Status prepare_folder(PhaseContext& ctx, Status* st, uint64_t* stale_removed, uint64_t* base_step) const;
  // Untimed setup: engines, buffers filled once. Every rank agrees before the
  // first burst; false when one failed (*worst says why).
  bool setup_writers(PhaseContext& ctx, const ShardLayout& l, std::vector<Writer>& writers, const Status& st,
                     const Status& comm, uint64_t* phase_t0, Status* worst) const;

  CheckpointParams p_;
};

std::vector<Writer> CheckpointPhase::place_writers(PhaseContext& ctx, const ShardLayout& l) const {
  const int rank = ctx.comm.rank();
  std::vector<Writer> writers(p_.workers);
  uint64_t my_bytes = 0;
  for (unsigned w = 0; w < p_.workers; ++w) {
    Writer& wk = writers[w];
    wk.rank = rank;
    wk.worker = w;
    wk.tally = IoTally(p_.series_interval_ns);
    wk.shards = writer_shards(rank, ctx.comm.size(), p_.workers, w, l);
    wk.active = !wk.shards.empty();
    my_bytes += writer_bytes(wk, l);
  }
  ctx.progress.total_bytes.store(my_bytes * p_.count);
  return writers;
}

Status CheckpointPhase::prepare_folder(PhaseContext& ctx, Status* st, uint64_t* stale_removed,
                                       uint64_t* base_step) const {
  uint64_t base = 0;
  if (ctx.comm.rank() == 0 && st->ok())
    *st = remove_stale_steps(*ctx.store, ctx.phase_name, stale_removed, &base);
  Status b = broadcast_value(ctx.comm, &base, 0, "first step");
  if (b.ok()) b = ctx.comm.barrier();  // rank 0's cleanup is done before anyone writes
  *base_step = base;
  return b;
}

bool CheckpointPhase::setup_writers(PhaseContext& ctx, const ShardLayout& l, std::vector<Writer>& writers,
                                    const Status& st, const Status& comm, uint64_t* phase_t0,
                                    Status* worst) const {
  WorkerRun setup_run;
  Status sb = run_workers(
      ctx.comm, p_.workers, [&](unsigned w) { return st.ok() ? setup_writer(p_, ctx, l, &writers[w]) : st; },
      [](unsigned, uint64_t) { return Status::Ok(); }, &setup_run);
  *phase_t0 = setup_run.t0_ns;
  Status local = comm.ok() ? (sb.ok() ? setup_run.first_error() : sb) : comm;
  bool all_ok = false;
  Status ag = agree_all_ok(ctx.comm, local, &all_ok);
  bool go = ag.ok() && all_ok;
  *worst = local;
  if (!go && worst->ok()) *worst = ag.ok() ? Status::IoError("another rank failed to set up") : ag;
  return go;
}

Status CheckpointPhase::run(PhaseContext& ctx, PhaseResult* result) {
  const uint64_t start = now_ns();
  const ShardLayout l = layout(ctx.comm.size());
  std::vector<Writer> writers = place_writers(ctx, l);
  CheckpointRun mine;
  mine.tally = IoTally(p_.series_interval_ns);
  Status st = ctx.store->make_folder(ctx.phase_name);
  const bool have_folder = st.ok();
  uint64_t base_step = 0;
  const Status b = prepare_folder(ctx, &st, &mine.stale_removed, &base_step);
  if (st.ok() && p_.async) st = check_staging_memory(writers, l);
  std::unique_ptr<LocalTier> tier;  // two tiers: the writers write here; removed on every way out
  if (p_.two_tier) {
    HostShare host;
    const Status h = host_share(ctx, writers, l, &host);  // collective: every rank, whatever st says
    if (st.ok()) st = h.ok() ? LocalTier::open(p_, ctx, host, &tier) : h;
  }
  uint64_t phase_t0 = 0;
  const bool go = setup_writers(ctx, l, writers, st, b, &phase_t0, &mine.worst);
  add_setup(result, start, phase_t0);  // the folder cleared, engines made, buffers filled, the barrier

  const WriteContext wc{p_, tier ? tier->write_context() : ctx, l, phase_t0};
  uint64_t last_step = 0;
  {
    CheckpointBursts bursts(ctx, wc, writers, &mine.worst, tier.get());
    if (go && ctx.ready_to_start) ctx.ready_to_start();
    if (go) bursts.run(base_step);
    mine.done = bursts.done();
    mine.commits = bursts.commits();
    mine.overruns = bursts.overruns();
    last_step = bursts.last_committed_step();
  }
  if (tier && go) {
    const bool all_committed = mine.done.size() == p_.count && !ctx.stop.load();
    keep_worst(&mine.worst, time_recovery(ctx, *tier, last_step, written_files(writers, l), p_.block_size,
                                          all_committed, &mine.tier.recovery));
    mine.tier.local_folder = tier->location();
  }
  if (tier) {
    if (Status rm = tier->remove(); !rm.ok()) mine.tier.cleanup_problem = rm.message();
  }
  for (auto& wk : writers) {
    wk.engine.reset();
    mine.tally.merge(wk.tally);
  }
  // A step that did not commit leaves only its .tmp; without --keep it goes now.
  if (ctx.comm.rank() == 0 && have_folder && !ctx.keep) remove_uncommitted_steps(*ctx.store, ctx.phase_name);
  return report_checkpoints(ctx, p_, l, mine, result);
}

// `preset` and `model` (its fields over the preset's): the model, its plan's per-rank bytes and the
// full size they add up to. False when neither is given; errors go to r, naming each field.
bool read_model(ParamReader& r, CheckpointParams* p) {
  TransformerSpec spec;
  bool ok = true;
  if (!read_model_param(r, &spec, &ok)) return false;
  if (r.raw("writer_fraction") != nullptr) {
    r.fail("writer_fraction", "applies only without a model: the model's plan decides which ranks write");
  }
  // DCP's own dedup in layout dcp (PyTorch >= 2.3; "first" is 2.2's); elsewhere the first replica, as
  // DLIO's rules and Megatron write.
  const bool dcp = p->layout == CheckpointLayoutKind::kDcp && spec.formula != ModelFormula::kDlio;
  const std::string writer =
      r.choice("replica_writer", dcp ? "balanced" : "first", {"balanced", "first", "spread", "all"});
  p->replica_writer = writer == "spread"     ? ReplicaWriter::kSpread
                      : writer == "all"      ? ReplicaWriter::kAll
                      : writer == "balanced" ? ReplicaWriter::kBalanced
                                             : ReplicaWriter::kFirst;
  if (ok && spec.formula == ModelFormula::kDlio && p->replica_writer != ReplicaWriter::kFirst) {
    r.fail("replica_writer",
           "DLIO's rules (model.formula \"dlio\") write replicated state from the first replica "
           "only: use \"first\", or model.formula \"exact\"");
    ok = false;
  }
  if (p->layout == CheckpointLayoutKind::kMegatron && p->replica_writer != ReplicaWriter::kFirst) {
    r.fail("replica_writer",
           "layout megatron writes from each tensor x pipeline group's first data-parallel "
           "rank, as Megatron-LM does: use \"first\"");
    ok = false;
  }
  if (ok) {
    const ModelPlan plan = plan_model(spec, p->replica_writer);
    p->params = static_cast<double>(plan.parameters);
    p->bytes_per_param = static_cast<double>(plan.total_bytes) / static_cast<double>(plan.parameters);
    p->full_bytes = static_cast<double>(plan.total_bytes);
    p->plan_rank_bytes = plan.rank_bytes;
    p->model = spec;
  }
  return true;
}

// commit: Megatron-LM's own save by default in layout megatron (megatron/training/checkpointing.py:
// torch.save of each file, no fsync, the tracker rewritten in place), iofab's durable commit elsewhere
// and with mode async or a tier, whose drains end durable.
void read_commit_mode(ParamReader& r, CheckpointParams* p) {
  const bool megatron = p->layout == CheckpointLayoutKind::kMegatron;
  const bool as_megatron = megatron && !p->async && !p->two_tier;
  const std::string commit =
      r.choice("commit", as_megatron ? "megatron" : "durable", {"durable", "megatron"});
  p->commit = commit == "megatron" ? CommitMode::kMegatron : CommitMode::kDurable;
  if (p->commit != CommitMode::kMegatron) return;
  if (!megatron) {
    r.fail("commit", "\"megatron\" is Megatron-LM's save, of layout \"megatron\" only: use \"durable\"");
  } else if (p->async || p->two_tier) {
    r.fail("commit",
           "\"megatron\" is Megatron-LM's synchronous save to the target; with mode async or a tier "
           "use \"durable\"");
  }
}

// dcp's record_order and framing (checkpoint_files.h); mode and layout are read before.
void read_dcp_records(ParamReader& r, CheckpointParams* p) {
  const bool dcp = p->layout == CheckpointLayoutKind::kDcp;
  for (const char* key : {"record_order", "framing"}) {
    if (!dcp && r.raw(key) != nullptr) r.fail(key, "applies only to layout \"dcp\"");
  }
  const std::string order =
      r.choice("record_order", p->async ? "state_dict" : "size", {"size", "state_dict"});
  p->state_dict_order = order == "state_dict";
  if (p->async && !p->state_dict_order) {
    r.fail("record_order",
           "mode async stages the state dict first and writes it in its order (DCP's "
           "_SerialCpuLoader): use \"state_dict\"");
  }
  p->raw_records = r.choice("framing", "torch", {"torch", "none"}) == "none";
  p->serialize = (dcp && !p->raw_records) || p->layout == CheckpointLayoutKind::kTorchSave;
  const std::string cal = r.string("calibration", "");
  if (!p->serialize) {
    if (r.raw("calibration") != nullptr)
      r.fail("calibration", "applies only to layouts dcp (framing torch) and torch_save");
    return;
  }
  Status s = find_calibration(cal, &p->calibration);
  if (s.ok()) s = torch_costs(p->calibration, kTorchSaveSection, &p->serialize_costs, &p->costs_from_file);
  if (!s.ok()) r.fail("calibration", s.message());
}

// ---- parse_checkpoint's parts, in the order it reads them.

// layout (and threads, which only dcp takes); returns the name as given, for messages.
std::string read_checkpoint_layout(ParamReader& r, CheckpointParams* p) {
  const std::string layout = r.choice("layout", "shards", {"shards", "dcp", "megatron", "torch_save"});
  p->layout = layout == "dcp"          ? CheckpointLayoutKind::kDcp
              : layout == "megatron"   ? CheckpointLayoutKind::kMegatron
              : layout == "torch_save" ? CheckpointLayoutKind::kTorchSave
                                       : CheckpointLayoutKind::kShards;
  p->threads = static_cast<unsigned>(r.integer("threads", 1, 1, 64));
  if (r.raw("threads") != nullptr && p->layout != CheckpointLayoutKind::kDcp) {
    r.fail("threads", "applies only to layout \"dcp\" (its files per rank, one per writer thread)");
  }
  return layout;
}

// The checkpoint's size: a model's plan, else params x bytes_per_param, else checkpoint_size; each way
// refuses the others' params.
void read_checkpoint_size(ParamReader& r, const std::string& layout, bool has_model, CheckpointParams* p) {
  const bool has_params = r.raw("params") != nullptr;
  const bool has_bpp = r.raw("bytes_per_param") != nullptr;
  const bool has_size = r.raw("checkpoint_size") != nullptr;
  if (!has_model && p->layout != CheckpointLayoutKind::kShards) {
    r.fail("layout", "\"" + layout + "\" lays out a model's tensors: give model or preset too");
  }
  if (!has_model && r.raw("replica_writer") != nullptr) {
    r.fail("replica_writer",
           "applies only with a model (model or preset): it picks who writes replicated state");
  }
  if (has_model && (has_params || has_size || has_bpp)) {
    r.fail(has_params ? "params"
           : has_size ? "checkpoint_size"
                      : "bytes_per_param",
           "give either a model (model, preset) or params / checkpoint_size, not both");
  } else if (has_model) {
    // The model's plan sets the size; what follows reads the other params.
  } else if (has_params) {
    p->params = r.count("params", 0, kMinParams, kMaxParams);
    p->bytes_per_param =
        r.count("bytes_per_param", kDefaultBytesPerParam, kMinBytesPerParam, kMaxBytesPerParam);
    p->full_bytes = checkpoint_bytes(p->params, p->bytes_per_param);
  }
  if (has_bpp && !has_params)
    r.fail("bytes_per_param", "applies only with params; give params too, or checkpoint_size alone");
  if (has_model) {
    // Reported with the model above.
  } else if (has_size && has_params) {
    r.fail("checkpoint_size", "give either params (with bytes_per_param) or checkpoint_size, not both");
  } else if (!has_params) {
    p->full_bytes = static_cast<double>(r.size("checkpoint_size", 1ULL << 30, kShardAlign));
  }
}

// The written checkpoint (full size / scale), and keep + 1 of them, must fit the byte counters.
void check_written_bytes(ParamReader& r, const CheckpointParams& p) {
  if (p.full_bytes / p.scale > 1e18) {
    r.fail("scale", "the written checkpoint (full size / scale) must be below 1e18 bytes");
  } else if (p.full_bytes / p.scale * (p.keep + 1.0) >= 0x1p64) {
    r.fail("keep",
           "(keep + 1) x the written checkpoint (full size / scale) exceeds 2^64 bytes; lower keep or "
           "raise scale");
  }
}

// A model in a layout other than shards: the files each rank writes, and the size they add up to.
void plan_model_layout(ParamReader& r, CheckpointParams* p) {
  p->files = std::make_shared<const std::vector<PlannedFile>>(
      plan_checkpoint_files(*p->model, p->replica_writer, p->layout, p->threads, p->scale, p->direct,
                            p->state_dict_order, p->raw_records));
  if (p->layout == CheckpointLayoutKind::kDcp && !p->raw_records)
    p->dcp_metadata_bytes = dcp_metadata_bytes(*p->files);
  if (std::none_of(p->files->begin(), p->files->end(), [](const PlannedFile& f) { return f.bytes > 0; })) {
    r.fail("scale", "leaves no byte of any tensor to write: lower it");
  }
  // What each planned rank writes at full size in this layout (megatron: only each group's first
  // data-parallel rank, with its own copy of the norms), for the skew and the budget.
  std::vector<uint64_t> full(p->model->ranks(), 0);
  for (const PlannedFile& f : plan_checkpoint_files(*p->model, p->replica_writer, p->layout, p->threads, 1,
                                                    false, p->state_dict_order, p->raw_records))
    full[f.plan_rank] += f.bytes;
  p->plan_rank_bytes = full;
  p->full_bytes = static_cast<double>(std::accumulate(full.begin(), full.end(), uint64_t{0}));
  p->bytes_per_param = p->full_bytes / p->params;
}

}  // namespace

std::unique_ptr<Phase> parse_checkpoint(ParamReader& r) {
  CheckpointParams p;
  static_cast<IoParams&>(p) = read_io_params(r, {.queue_depth = 16});
  p.writer_fraction = r.fraction("writer_fraction", 1, kMinWriterFraction, 1);
  const std::string layout = read_checkpoint_layout(r, &p);
  const bool has_model = read_model(r, &p);
  read_checkpoint_size(r, layout, has_model, &p);
  p.scale = r.count("scale", 1, 1, 1e12);
  p.count = static_cast<unsigned>(r.integer("count", 3, 1, 100000));
  p.interval_s = r.duration("interval", 3600, kMinIntervalSeconds, kMaxIntervalSeconds);
  p.gap_s = r.duration("gap", 2, 0, 24 * 3600);
  p.async = r.choice("mode", "sync", {"sync", "async"}) == "async";
  read_tier_params(r, &p);
  read_commit_mode(r, &p);
  read_dcp_records(r, &p);
  p.keep = static_cast<unsigned>(r.integer("keep", 1, 1, 1000));
  p.budget_fraction = r.fraction("budget_fraction", kDefaultBudgetFraction, kMinBudgetFraction, 1);
  p.seed = static_cast<uint64_t>(r.integer("seed", 1, 0, INT64_MAX));
  p.reduce = read_reducibility(r);
  check_written_bytes(r, p);
  if (p.model && p.layout != CheckpointLayoutKind::kShards) plan_model_layout(r, &p);
  return std::make_unique<CheckpointPhase>(std::move(p));
}

std::span<const std::string_view> checkpoint_solo_metrics() {
  static constexpr std::string_view kSolo[] = {"stall_seconds_mean", "stall_seconds_max", "drain_seconds_max",
                                               "write_bytes_per_s", "drain_bytes_per_s"};
  return kSolo;
}

namespace {

// The budget: stall and write rate as run and projected to full size, and the checkpoint's size.
std::vector<MetricInfo> checkpoint_budget_metrics() {
  return {
      {.name = "budget_margin",
       .unit = Unit::kRatio,
       .better = Better::kHigher,
       .description =
           "allowed stall / projected stall at full size, worst checkpoint; >= 1 passes the budget"},
      {.name = "stall_seconds_max",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "longest stall of training by one checkpoint (as run)"},
      {.name = "projected_stall_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "full-size checkpoint bytes / measured aggregate bytes/s of the slowest checkpoint"},
      {.name = "write_bytes_per_s",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kHigher,
       .description = "bytes written / time writing (bursts only; sync: writes + fsyncs, async: drains)"},
      {.name = "checkpoint_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "bytes of one checkpoint as written (full size / scale)"},
      {.name = "full_checkpoint_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description =
           "bytes of one full-size checkpoint (params x bytes_per_param, or the sum of the model plan's "
           "ranks)"},
      {.name = "stall_seconds_mean",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "mean stall per checkpoint"},
      {.name = "durable_seconds_max",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description =
           "longest time from a checkpoint's start until its bytes are durable (slowest rank): the stall, or "
           "with "
           "commit megatron (no fsync in the stall) the stall and one sync of every file after it"},
      {.name = "drain_seconds_max",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description =
           "async: longest background write + fsync; two tiers: longest copy from local_dir to the target "
           "(slowest rank); 0 for sync"},
      {.name = "allowed_stall_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kNeither,
       .description = "budget_fraction x interval"},
      {.name = "required_bytes_per_s",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kNeither,
       .description = "full-size checkpoint bytes / allowed stall: what storage must sustain"},
      {.name = "stall_bytes_per_s",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kHigher,
       .description =
           "checkpoint bytes / stall of the slowest checkpoint: the measured aggregate rate the projection "
           "uses"},
      {.name = "commit_seconds_max",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "manifest write, fsyncs and rename, longest"},
      {.name = "delete_seconds_max",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "removal of checkpoints beyond keep, longest"},
      {.name = "checkpoints",
       .unit = Unit::kCount,
       .better = Better::kNeither,
       .description = "checkpoints committed"},
      {.name = "shards",
       .unit = Unit::kCount,
       .better = Better::kNeither,
       .description = "shard files per checkpoint (writers)"},
  };
}

// The figures as MLPerf Storage and DLIO compute them, and a model plan's balance.
std::vector<MetricInfo> checkpoint_mlperf_metrics() {
  return {
      {.name = "mlperf_save_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "MLPerf Storage's checkpoint duration: per checkpoint the slowest rank's writes and "
                      "fsyncs, the max "
                      "over "
                      "ranks; mean over checkpoints, as written (scaled)"},
      {.name = "mlperf_save_gib_per_s",
       .unit = Unit::kRatio,
       .better = Better::kHigher,
       .description =
           "MLPerf Storage's save throughput in GiB/s (its \"GB/s\"): checkpoint GiB / mlperf_save_seconds, "
           "the "
           "rate the slowest rank sets; iofab's aggregate is write_bytes_per_s"},
      {.name = "mlperf_save_rate_mean_gib_per_s",
       .unit = Unit::kRatio,
       .better = Better::kHigher,
       .description =
           "DLIO's formula on mlperf_save_seconds' durations: the mean over checkpoints of checkpoint GiB / "
           "each one's duration (mlperf_save_gib_per_s is GiB / the mean duration)"},
      {.name = "mlperf_save_seconds_rank0",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "rank 0's own save (writes and fsyncs), mean over checkpoints: DLIO times rank 0 only "
                      "(checkpoint.rank_sync false)"},
      {.name = "dlio_save_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description =
           "sync: rank 0's save without its fsyncs, mean over checkpoints: the duration DLIO reports "
           "(its writers' checkpoint_fsync is false)"},
      {.name = "dlio_save_gib_per_s",
       .unit = Unit::kRatio,
       .better = Better::kHigher,
       .description =
           "sync: the figure DLIO and mlpstorage publish, unsynced: the mean over checkpoints of checkpoint "
           "GiB / rank 0's save without fsync; iofab's durable figure is mlperf_save_gib_per_s"},
      {.name = "mlperf_checkpoint_gib_per_accelerator",
       .unit = Unit::kRatio,
       .better = Better::kNeither,
       .description =
           "with a model: the full checkpoint's GiB / the planned ranks, which MLPerf's rule 4.3.4 wants at "
           "most one simulated accelerator's memory (b200 180, mi355 288)"},
      {.name = "rank_bytes_skew",
       .unit = Unit::kRatio,
       .better = Better::kLower,
       .description =
           "with a model: the largest planned rank's bytes / the mean over every planned rank (1: balanced)"},
  };
}

// What async saves and two tiers add, and the per-write latency.
std::vector<MetricInfo> checkpoint_drain_metrics() {
  return {
      {.name = "write_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "bytes written by all ranks, all checkpoints"},
      {.name = "drain_overruns",
       .unit = Unit::kCount,
       .better = Better::kLower,
       .description = "async, two tiers: checkpoints due while the previous one still drained"},
      {.name = "projected_drain_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "async, two tiers: longest drain scaled to full size"},
      {.name = "drain_margin",
       .unit = Unit::kRatio,
       .better = Better::kHigher,
       .description =
           "async, two tiers: (interval - projected stall) / projected drain; >= 1: a full-size drain ends "
           "before the next checkpoint"},
      {.name = "drain_bytes_per_s",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kHigher,
       .description = "two tiers: checkpoint bytes / the slowest rank's drain, over every checkpoint"},
      {.name = "recovery_local_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description =
           "two tiers: read back and verify the newest checkpoint from local_dir, cache dropped (slowest "
           "rank)"},
      {.name = "recovery_shared_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description =
           "two tiers: read back and verify the newest checkpoint from the target, cache dropped (slowest "
           "rank)"},
      {.name = "recovery_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "two tiers: bytes read back from each tier"},
      {.name = "latency_p50_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "per-write latency, median"},
      {.name = "latency_p99_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "per-write latency, 99th percentile"},
      {.name = "latency_max_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "per-write latency, max"},
  };
}

}  // namespace

const std::vector<MetricInfo>& checkpoint_metrics() {
  static const std::vector<MetricInfo> kMetrics = [] {
    std::vector<MetricInfo> rows;
    for (const auto& group :
         {checkpoint_budget_metrics(), checkpoint_mlperf_metrics(), checkpoint_drain_metrics()})
      rows.insert(rows.end(), group.begin(), group.end());
    // On an s3:// target: requests/s, time to first byte, latency, retries, errors.
    for (const MetricInfo& m : request_metric_infos()) rows.push_back(m);
    return with_solo_metrics(std::move(rows), checkpoint_solo_metrics());
  }();
  return kMetrics;
}

}  // namespace iofab
