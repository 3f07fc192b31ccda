#include "workloads/model_load/model_load_phase.h"

#include <cctype>
#include <optional>
#include <string>

#include "harness/comm/agree.h"
#include "harness/core/checked_math.h"
#include "harness/engines/engine_choice.h"
#include "harness/engines/io_driver.h"
#include "harness/phase/io_params.h"
#include "harness/phase/metric_rows.h"
#include "harness/phase/params.h"
#include "harness/phase/worker_group.h"
#include "workloads/checkpoint/model_param.h"
#include "workloads/checkpoint/presets.h"
#include "workloads/model_load/params.h"
#include "workloads/model_load/replica.h"
#include "workloads/model_load/results.h"
#include "workloads/model_load/weights.h"

namespace iofab {
namespace {

class ModelLoadPhase final : public Phase {
 public:
  explicit ModelLoadPhase(ModelLoadParams p) : p_(std::move(p)) {}

  // Its files stay for later phases (weights_from) until the run folder goes.
  std::optional<uint64_t> planned_bytes(int) const override { return p_.files.file_bytes; }
  std::optional<uint64_t> retained_bytes(int) const override { return p_.files.file_bytes; }
  Status run(PhaseContext& ctx, PhaseResult* result) override;

 private:
  // Untimed, on every rank: the files written (or weights_from's found), their pages dropped.
  Status prepare(PhaseContext& ctx, LoadSetup* setup) const;
  // After the verified read: the pages dropped again, then every replica loads as safetensors does.
  Status load_as_safetensors(PhaseContext& ctx, LoadSetup* setup, std::vector<Replica>* replicas) const;

  ModelLoadParams p_;
};

Status ModelLoadPhase::prepare(PhaseContext& ctx, LoadSetup* setup) const {
  setup->wrote = p_.weights_from.empty();
  setup->folder = setup->wrote ? ctx.phase_name : p_.weights_from;
  Status st = engine_for_store(*ctx.store, p_.engine, &setup->engine);
  if (st.ok() && setup->wrote) {
    // Written with the fastest engine for writing: what is measured is the load, not this.
    std::string writer;
    st = engine_for_store(*ctx.store, "auto", &writer);
    if (st.ok()) st = write_weights(ctx, p_, writer, setup->folder, &setup->write_seconds);
  }
  st = agree(ctx.comm, st);
  if (!st.ok()) {
    // A failed write's files go now, not with the run folder: left, they hold the room the next phase
    // needs (a full target failed it with ENOSPC too). Every rank, as each may hold its own copy.
    if (setup->wrote && !ctx.keep) ctx.store->remove_tree(setup->folder).ignore_error();
    agree(ctx.comm, Status::Ok()).ignore_error();  // gone on every rank before the next phase
    return st;
  }
  st = find_weights(*ctx.store, setup->folder, &setup->index, &setup->files);
  if (!st.ok() && !setup->wrote) {
    st = Status::FromCode(st.code(), "weights_from \"" + p_.weights_from + "\": " + st.message() +
                                         " (weights_from names an earlier model_load phase of this run)");
  }
  // Cold: every rank drops the pages on its host once every rank has found the files.
  st = agree(ctx.comm, st);
  if (st.ok() && p_.drop_cache) setup->drop = drop_weight_pages(*ctx.store, setup->folder, setup->files);
  return st;
}

Status ModelLoadPhase::load_as_safetensors(PhaseContext& ctx, LoadSetup* setup,
                                           std::vector<Replica>* replicas) const {
  if (p_.drop_cache) setup->safetensors_drop = drop_weight_pages(*ctx.store, setup->folder, setup->files);
  const ItemCosts spin = p_.safetensors_costs.spin();
  WorkerRun run;
  const Status barrier = run_workers(
      ctx.comm, p_.workers, [](unsigned) { return Status::Ok(); },
      [&](unsigned w, uint64_t t0) {
        return safetensors_load(ctx, setup->folder, setup->files, spin, t0, &(*replicas)[w].safetensors);
      },
      &run);
  Status local = barrier.ok() ? run.first_error() : barrier;
  if (local.ok()) local = ctx.comm.barrier();
  return local;
}

Status ModelLoadPhase::run(PhaseContext& ctx, PhaseResult* result) {
  const uint64_t start = now_ns();
  LoadSetup setup;
  std::vector<Replica> replicas(p_.workers);
  for (Replica& r : replicas) r.tally = IoTally(p_.series_interval_ns);
  Status st = prepare(ctx, &setup);
  if (!st.ok()) return st;
  uint64_t one = 0;
  for (const WeightFile& f : setup.files) one += f.bytes;
  ctx.progress.total_bytes.store(one * p_.workers);
  WorkerRun run;
  const Status barrier = run_workers(
      ctx.comm, p_.workers, [&](unsigned w) { return setup_replica(ctx, p_, setup.engine, &replicas[w]); },
      [&](unsigned w, uint64_t t0) {
        return load_replica(ctx, p_, setup.folder, setup.files, t0, &replicas[w]);
      },
      &run);
  add_setup(result, start, run.t0_ns);  // the files written (write_seconds), the cache dropped, opened
  Status local = barrier.ok() ? run.first_error() : barrier;
  // The phase ends when the slowest rank's replicas are ready.
  if (local.ok()) local = ctx.comm.barrier();
  for (Replica& r : replicas) r.engine.reset();  // unmaps: the pages may go again
  if (local.ok() && p_.safetensors_ready) local = load_as_safetensors(ctx, &setup, &replicas);
  return report_model_load(ctx, p_, setup, replicas, local, result);
}

bool phase_name_like(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<Phase> parse_model_load(ParamReader& r) {
  ModelLoadParams p;
  static_cast<IoParams&>(p) = read_io_params(r, {.queue_depth = 8, .reads = true});
  if (p.direct) {
    r.fail("direct",
           "model_load reads through the page cache, as loaders of safetensors do (the files' sizes "
           "are not multiples of 4KiB): set direct: false");
  }
  p.weights_from = r.string("weights_from", "");
  const bool from = r.raw("weights_from") != nullptr;
  if (from && !phase_name_like(p.weights_from)) {
    r.fail("weights_from", "expected the name of an earlier model_load phase (letters, digits, '_' and '-')");
  }
  p.ready_budget_s = r.duration("ready_budget", 0, 0, 365.0 * 24 * 3600);
  p.drop_cache = r.boolean("drop_cache", true);
  p.safetensors_ready = r.boolean("safetensors_ready", true);
  if (p.safetensors_ready) {
    Status s = find_calibration(r.string("calibration", ""), &p.calibration);
    if (s.ok()) s = torch_costs(p.calibration, kSafetensorsSection, &p.safetensors_costs, &p.costs_from_file);
    if (!s.ok()) r.fail("calibration", s.message());
  } else if (r.raw("calibration") != nullptr) {
    r.fail("calibration",
           "applies only with safetensors_ready: true (its costs are the safetensors section's)");
  }
  if (from) {
    // The files are the earlier phase's: what shapes them belongs there.
    for (const char* key : {"preset", "model", "scale", "max_shard_size", "seed"}) {
      if (r.raw(key) != nullptr) {
        r.fail(key,
               "shapes the files this phase writes; with weights_from it reads an earlier phase's: set it "
               "there");
      }
    }
    return std::make_unique<ModelLoadPhase>(std::move(p));
  }
  bool valid = true;
  if (!read_model_param(r, &p.model, &valid)) {
    p.model = find_model_preset("llama3-8b")->spec;
    valid = true;
  }
  if (valid && p.model.formula != ModelFormula::kExact) {
    r.fail(r.raw("model") != nullptr ? "model" : "preset",
           "model_load lays out the architecture's tensors: use model.formula \"exact\" (a preset "
           "without mlperf-)");
    valid = false;
  }
  if (const nlohmann::json* m = r.raw("model"); m != nullptr && m->is_object()) {
    for (const char* k : {"tensor", "pipeline", "data", "zero"}) {
      if (m->contains(k)) {
        r.fail("model", std::string("every replica loads the whole model: \"") + k +
                            "\" (training's parallelism) does not apply");
        valid = false;
        break;
      }
    }
  }
  p.scale = r.count("scale", 1, 1, 1e12);
  p.max_shard_bytes = r.size("max_shard_size", kDefaultMaxShardBytes, 1);
  p.seed = static_cast<uint64_t>(r.integer("seed", 1, 0, INT64_MAX));
  if (valid && r.errors().empty()) {
    p.files = plan_model_files(p.model, p.scale, p.max_shard_bytes, p.seed);
    if (p.files.files.size() > 100000) {
      r.fail("max_shard_size", "makes " + std::to_string(p.files.files.size()) +
                                   " files, more than 99999 (model-NNNNN-of-NNNNN): raise it");
    } else if (p.files.file_bytes > (1ULL << 50)) {
      r.fail("scale",
             "leaves " + std::to_string(p.files.file_bytes) + " bytes to write, above 1 PiB: raise it");
    }
  }
  return std::make_unique<ModelLoadPhase>(std::move(p));
}

namespace {

// model_load_metrics's rows in 2 parts, in the report's order (harness/phase/metric_rows.h).
std::vector<MetricInfo> model_load_metric_rows_1() {
  return {
      {.name = "ready_seconds_max",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description =
           "time-to-ready of the slowest replica: the start to its last tensor byte read and verified"},
      {.name = "ready_seconds_mean",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "mean time-to-ready over every replica"},
      {.name = "ready_seconds_min",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "time-to-ready of the fastest replica"},
      {.name = "read_bytes_per_s",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kHigher,
       .description = "aggregate: bytes every replica read / (last end - first start)"},
      {.name = "read_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "bytes read by every replica (replicas x model_bytes)"},
      {.name = "model_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "one copy of the weights' files as written (headers too)"},
      {.name = "full_model_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "model_bytes at full size (scale 1)"},
      {.name = "parameters",
       .unit = Unit::kCount,
       .better = Better::kNeither,
       .description = "the full model's parameters"},
      {.name = "shard_files",
       .unit = Unit::kCount,
       .better = Better::kNeither,
       .description = "safetensors files (model-0000k-of-0000n)"},
      {.name = "replicas",
       .unit = Unit::kCount,
       .better = Better::kNeither,
       .description = "ranks x workers, each loading the whole model"},
      {.name = "projected_ready_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "the slowest replica's time-to-ready at full size: full_model_bytes / (model_bytes / "
                      "ready_seconds_max)"},
      {.name = "allowed_ready_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kNeither,
       .description = "ready_budget (when set)"},
      {.name = "required_read_bytes_per_s",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kNeither,
       .description = "per replica: full_model_bytes / ready_budget (when set)"},
      {.name = "ready_budget_margin",
       .unit = Unit::kRatio,
       .better = Better::kHigher,
       .description = "ready_budget / projected_ready_seconds (when set); >= 1 passes"},
  };
}

std::vector<MetricInfo> model_load_metric_rows_2() {
  return {
      {.name = "corrupt_files",
       .unit = Unit::kCount,
       .better = Better::kLower,
       .description = "files missing, unreadable, with a bad header or a tensor byte that differs"},
      {.name = "verified_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "tensor bytes checked against their content"},
      {.name = "verify_bytes_per_s",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kHigher,
       .description = "bytes checked per second of checking"},
      {.name = "header_seconds_max",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "one replica's time reading and parsing its files' headers, the most of any"},
      {.name = "cache_resident_fraction",
       .unit = Unit::kFraction,
       .better = Better::kLower,
       .description = "of the files, the fraction in the page cache after dropping it, before loading"},
      {.name = "safetensors_ready_seconds_max",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "time-to-ready of the slowest replica as safetensors defines it: load_file (mapped, "
                      "header parsed) "
                      "then every tensor copied once, from a cold cache"},
      {.name = "safetensors_ready_seconds_mean",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "mean over every replica of safetensors' time-to-ready"},
      {.name = "safetensors_ready_ratio",
       .unit = Unit::kRatio,
       .better = Better::kNeither,
       .description = "safetensors_ready_seconds_max / ready_seconds_max: what the framework waits over "
                      "iofab's verified "
                      "read"},
      {.name = "write_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kNeither,
       .description = "setup: writing the files (the slowest rank's share), not part of time-to-ready"},
      {.name = "latency_p50_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "per-block read (mmap: copy out of the mapping), median"},
      {.name = "latency_p99_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "per-block read, 99th percentile"},
      {.name = "latency_max_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "per-block read, max"},
  };
}

}  // namespace

const std::vector<MetricInfo>& model_load_metrics() {
  static const std::vector<MetricInfo> kMetrics =
      joined_rows({model_load_metric_rows_1(), model_load_metric_rows_2()});
  return kMetrics;
}

}  // namespace iofab
