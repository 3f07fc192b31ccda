#include "workloads/restore/restore_phase.h"

#include <cctype>
#include <optional>
#include <string>

#include "harness/comm/rank_gather.h"
#include "harness/engines/io_driver.h"
#include "harness/fs/diskstats.h"
#include "harness/phase/idle.h"
#include "harness/phase/io_params.h"
#include "harness/phase/metric_rows.h"
#include "harness/phase/params.h"
#include "harness/phase/request_metrics.h"
#include "harness/phase/worker_group.h"
#include "workloads/checkpoint/presets.h"
#include "workloads/checkpoint/shard_layout.h"
#include "workloads/restore/checkpoint_source.h"
#include "workloads/restore/params.h"
#include "workloads/restore/read_plan.h"
#include "workloads/restore/reader.h"
#include "workloads/restore/results.h"
#include "workloads/restore/slice_reader.h"

namespace iofab {
namespace {

class RestorePhase final : public Phase {
 public:
  explicit RestorePhase(RestoreParams p) : p_(std::move(p)) {}

  std::optional<uint64_t> planned_bytes(int) const override { return 0; }  // reads only
  Status run(PhaseContext& ctx, PhaseResult* result) override;

 private:
  // Rank 0 finds the checkpoint (the back-th before the newest) and its manifest; every rank reads
  // the same one.
  Status locate(PhaseContext& ctx, uint64_t back, LocatedCheckpoint* cp) const;
  // This rank's readers' share of checkpoint m: whole files (read: files) or tensor slices.
  Status plan(const Manifest& m, int rank, int ranks, std::vector<Reader>& rds, TensorRestore* shape,
              uint64_t* my_bytes) const;

  RestoreParams p_;
};

Status RestorePhase::locate(PhaseContext& ctx, uint64_t back, LocatedCheckpoint* cp) const {
  Source src;
  if (ctx.comm.rank() == 0) src = find_checkpoint(p_, ctx, back);
  Status st = broadcast_value(ctx.comm, &src, 0, "checkpoint location");
  if (st.ok() && !src.error.empty()) st = Status::IoError(src.error);
  if (st.ok()) st = parse_manifest(src.manifest, &cp->manifest);
  if (st.ok()) {
    cp->external = src.external;
    cp->dir = src.dir;
  }
  return st;
}

Status RestorePhase::plan(const Manifest& m, int rank, int ranks, std::vector<Reader>& rds, TensorRestore* shape,
                          uint64_t* my_bytes) const {
  for (auto& rd : rds) {
    rd.tasks.clear();
    rd.slices.clear();
    rd.skipped_shards.clear();
  }
  if (!p_.tensors) {
    ReadPlan plan = plan_reads(m, p_.fanout, rank, ranks, p_.workers);
    for (unsigned w = 0; w < p_.workers; ++w) rds[w].tasks = std::move(plan.tasks[w]);
    *my_bytes = plan.bytes;
    return Status::Ok();
  }
  TransformerSpec target;
  Status st = restore_target(m, p_.reshard_to ? &*p_.reshard_to : nullptr, p_.reshard_to_path, &target);
  SlicePlan slices;
  if (st.ok()) st = plan_slice_reads(m, target, p_.weights_only, rank, ranks, p_.workers, &slices);
  if (!st.ok()) return st;
  for (unsigned w = 0; w < p_.workers; ++w) rds[w].slices = std::move(slices.per_worker[w]);
  *my_bytes = slices.bytes;
  shape->target = target;
  shape->tensor_bytes = slices.all_bytes;
  shape->slices = slices.all_slices;
  shape->partial_slices = slices.all_partial;
  return Status::Ok();
}

Status RestorePhase::run(PhaseContext& ctx, PhaseResult* result) {
  const int rank = ctx.comm.rank();
  const int ranks = ctx.comm.size();
  const uint64_t readers = static_cast<uint64_t>(ranks) * p_.workers;
  TensorRestore shape;
  std::vector<Reader> rds(p_.workers);
  for (auto& rd : rds) rd.tally = IoTally(p_.series_interval_ns);
  LocatedCheckpoint cp;
  std::vector<RestorePass> passes;
  std::optional<DiskCounters> before;
  std::string block_device;
  uint64_t phase_t0 = 0;
  Status local;
  // The oldest of the `steps` newest checkpoints first, as a job that wrote them reads them back.
  for (uint64_t back = p_.steps; back-- > 0;) {
    // Untimed, between the reads: each pass's seconds are its own (put_passes).
    if (!passes.empty()) idle_for(p_.gap_s, ctx.stop);
    const uint64_t pass_start = now_ns();  // the gap is the job's, not setup
    LocatedCheckpoint here;
    Status st = locate(ctx, back, &here);
    StepFolder step;
    if (st.ok()) st = open_step_folder(*ctx.store, here, &step);
    uint64_t my_bytes = 0;
    if (st.ok()) st = plan(here.manifest, rank, ranks, rds, &shape, &my_bytes);
    ctx.progress.total_bytes.store(ctx.progress.total_bytes.load() + my_bytes);
    if (passes.empty()) {
      // Device counters: the bytes the disk really read, beside the bytes asked for.
      block_device = here.external ? block_device_of(here.dir) : ctx.target.block_device;
      if (!block_device.empty()) before = read_disk_counters(block_device);
    }
    const Manifest& m = here.manifest;
    WorkerRun run;
    Status barrier = run_workers(
        ctx.comm, p_.workers, [&](unsigned w) { return st.ok() ? setup_reader(p_, step, m, &rds[w]) : st; },
        [&](unsigned w, uint64_t t0) {
          const uint64_t base = passes.empty() ? t0 : phase_t0;
          return p_.tensors ? read_slices(p_, ctx, step, m, base, &rds[w])
                            : read_shards(p_, ctx, step, m, base, &rds[w]);
        },
        &run);
    add_setup(result, pass_start, run.t0_ns);  // found, planned, the cache dropped, the shards opened
    if (passes.empty()) phase_t0 = run.t0_ns;
    const Status pass = st.ok() ? (barrier.ok() ? run.first_error() : barrier) : st;
    // The pass ends when the slowest rank's readers end: after this barrier, on every rank.
    const double own_s = (now_ns() - run.t0_ns) * 1e-9;
    const Status end = st.ok() && barrier.ok() ? ctx.comm.barrier() : Status::Ok();
    passes.push_back({m.step, (now_ns() - run.t0_ns) * 1e-9, m.total_bytes(), own_s});
    for (auto& rd : rds) rd.engine.reset();
    cp = std::move(here);
    local = pass.ok() ? end : pass;
    if (!local.ok()) break;
  }
  std::optional<DiskCounters> after;
  if (before) after = read_disk_counters(block_device);
  std::optional<uint64_t> device_read;
  if (after && before) device_read = (*after - *before).read_bytes;
  return report_restore(ctx, p_, cp, readers, rds, p_.tensors ? &shape : nullptr, passes, device_read, local,
                        result);
}

}  // namespace

std::unique_ptr<Phase> parse_restore(ParamReader& r) {
  RestoreParams p;
  static_cast<IoParams&>(p) = read_io_params(r, {.queue_depth = 16, .reads = true});
  p.fanout = static_cast<unsigned>(r.integer("fanout", kDefaultFanout, 1, kMaxFanout));
  p.checkpoint = r.string("checkpoint", "");
  p.from = r.string("from", "");
  p.restore_budget_s = r.duration("restore_budget", 0, 0, kMaxIntervalSeconds);
  p.drop_cache = r.boolean("drop_cache", true);
  p.steps = static_cast<unsigned>(r.integer("steps", 1, 1, 1000));
  p.gap_s = r.duration("gap", 0, 0, 24 * 3600);
  const std::string read = r.choice("read", "files", {"files", "tensors"});
  p.weights_only = r.boolean("weights_only", false);
  if (const nlohmann::json* j = r.raw("reshard_to"); j != nullptr) {
    // The saved model is known only when the checkpoint is found; its fields and forms are checked now.
    // Over any whole model: only the forms of the parallelism fields are checked here.
    TransformerSpec probe = find_model_preset("llama3-8b")->spec;
    const Status s = parse_model_spec(*j, r.path_of("reshard_to"), &probe);
    if (!j->is_object()) {
      r.fail("reshard_to", "expected an object of parallelism fields like {\"tensor\": 4, \"data\": 2}");
    } else if (!s.ok()) {
      r.fail_at_path(s.message());
    } else {
      for (const auto& [k, v] : j->items()) {
        if (k != "tensor" && k != "pipeline" && k != "data" && k != "zero") {
          r.fail("reshard_to", "changes only the parallelism (tensor, pipeline, data, zero), not \"" + k + "\"");
          break;
        }
      }
    }
    p.reshard_to = *j;
    p.reshard_to_path = r.path_of("reshard_to");
  }
  p.tensors = read == "tensors" || p.weights_only || p.reshard_to.has_value();
  if (read == "files" && r.raw("read") != nullptr && p.tensors) {
    r.fail("read", "reshard_to and weights_only load tensors: use read: \"tensors\" or leave read out");
  }
  if (p.tensors && r.raw("fanout") != nullptr) {
    r.fail("fanout", "applies to read: \"files\"; reading tensors, every rank of the job loads what it holds");
  }
  if (!p.checkpoint.empty() && !p.from.empty()) {
    r.fail("from", "give either checkpoint (a checkpoint phase of this run) or from (a folder), not both");
  }
  if (!p.from.empty() && p.from.front() != '/') {
    r.fail("from",
           "expected an absolute folder path like \"/data/iofab-20260101T000000Z-abc123/checkpoint/step-3\"");
  }
  for (char c : p.checkpoint) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) {
      r.fail("checkpoint", "expected the name of a checkpoint phase (letters, digits, '_' and '-')");
      break;
    }
  }
  return std::make_unique<RestorePhase>(std::move(p));
}

namespace {

// restore_metrics's rows in 2 parts, in the report's order (harness/phase/metric_rows.h).
std::vector<MetricInfo> restore_metric_rows_1() {
  return {
      {.name = "read_bytes_per_s",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kHigher,
       .description = "aggregate: bytes read / (last end - first start)"},
      {.name = "restore_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "first read's start to last reader's end, verification included"},
      {.name = "read_write_ratio",
       .unit = Unit::kRatio,
       .better = Better::kNeither,
       .description = "bytes read / checkpoint bytes (fanout when every shard is read)"},
      {.name = "corrupt_shards",
       .unit = Unit::kCount,
       .better = Better::kLower,
       .description = "shards missing, of the wrong size, unreadable or failing xxh3"},
      {.name = "read_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "bytes read by all ranks"},
      {.name = "verify_bytes_per_s",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kHigher,
       .description = "xxh3 bytes hashed per second of hashing, per core"},
      {.name = "verified_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "bytes checked against the manifest"},
      {.name = "checkpoint_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "bytes of the checkpoint (the manifest's shards)"},
      {.name = "shards",
       .unit = Unit::kCount,
       .better = Better::kNeither,
       .description = "shard files in the checkpoint"},
      {.name = "full_read_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description =
           "fanout x full-size checkpoint bytes (read: tensors: the bytes the job loads, at full size)"},
      {.name = "projected_restore_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "full_read_bytes / read_bytes_per_s"},
      {.name = "allowed_restore_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kNeither,
       .description = "restore_budget (when set)"},
      {.name = "required_read_bytes_per_s",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kNeither,
       .description = "full_read_bytes / restore_budget (when set)"},
      {.name = "restore_budget_margin",
       .unit = Unit::kRatio,
       .better = Better::kHigher,
       .description = "restore_budget / projected restore seconds (when set); >= 1 passes"},
  };
}

std::vector<MetricInfo> restore_metric_rows_2() {
  return {
      {.name = "cache_resident_fraction",
       .unit = Unit::kFraction,
       .better = Better::kLower,
       .description = "buffered reads: fraction of the checkpoint in the page cache after dropping it, "
                      "before reading"},
      {.name = "device_read_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "bytes the block device read (/proc/diskstats), per host"},
      {.name = "mlperf_load_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "MLPerf Storage's read duration: per checkpoint read, the slowest rank's (max over "
                      "ranks), mean over "
                      "the checkpoints read"},
      {.name = "mlperf_load_gib_per_s",
       .unit = Unit::kRatio,
       .better = Better::kHigher,
       .description = "MLPerf Storage's read throughput in GiB/s (its \"GB/s\"): the checkpoint's GiB (not "
                      "what fanout "
                      "reads) / mlperf_load_seconds; iofab's aggregate is read_bytes_per_s"},
      {.name = "mlperf_load_rate_mean_gib_per_s",
       .unit = Unit::kRatio,
       .better = Better::kHigher,
       .description =
           "DLIO's formula on mlperf_load_seconds' durations: the mean over reads of checkpoint GiB / each "
           "read's duration"},
      {.name = "dlio_load_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "rank 0's own read of each checkpoint, mean: the duration DLIO reports "
                      "(checkpoint.rank_sync false)"},
      {.name = "dlio_load_gib_per_s",
       .unit = Unit::kRatio,
       .better = Better::kHigher,
       .description = "the figure DLIO and mlpstorage publish: the mean over reads of checkpoint GiB / "
                      "rank 0's own read"},
      {.name = "checkpoints_read",
       .unit = Unit::kCount,
       .better = Better::kNeither,
       .description = "checkpoints read back (steps)"},
      {.name = "latency_p50_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "per-read latency, median"},
      {.name = "latency_p99_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "per-read latency, 99th percentile"},
      {.name = "latency_max_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "per-read latency, max"},
  };
}

}  // namespace

const std::vector<MetricInfo>& restore_metrics() {
  static const std::vector<MetricInfo> kMetrics = [] {
    std::vector<MetricInfo> rows = joined_rows({restore_metric_rows_1(), restore_metric_rows_2()});
    // On an s3:// target: requests/s, time to first byte, latency, retries, errors.
    for (const MetricInfo& m : request_metric_infos()) rows.push_back(m);
    return rows;
  }();
  return kMetrics;
}

}  // namespace iofab
