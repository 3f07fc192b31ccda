#include "workloads/model_load/model_load_phase.h"

#include <cctype>
#include <optional>
#include <string>

#include "harness/comm/agree.h"
#include "harness/core/checked_math.h"
#include "harness/engines/engine_choice.h"
#include "harness/engines/io_driver.h"
#include "harness/phase/io_params.h"
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

const std::vector<MetricInfo>& model_load_metrics() {
  static const std::vector<MetricInfo> kMetrics = {
      {"ready_seconds_max", Unit::kSeconds, Better::kLower,
       "time-to-ready of the slowest replica: the start to its last tensor byte read and verified"},
      {"ready_seconds_mean", Unit::kSeconds, Better::kLower, "mean time-to-ready over every replica"},
      {"ready_seconds_min", Unit::kSeconds, Better::kLower, "time-to-ready of the fastest replica"},
      {"read_bytes_per_s", Unit::kBytesPerSecond, Better::kHigher,
       "aggregate: bytes every replica read / (last end - first start)"},
      {"read_bytes", Unit::kBytes, Better::kNeither, "bytes read by every replica (replicas x model_bytes)"},
      {"model_bytes", Unit::kBytes, Better::kNeither,
       "one copy of the weights' files as written (headers too)"},
      {"full_model_bytes", Unit::kBytes, Better::kNeither, "model_bytes at full size (scale 1)"},
      {"parameters", Unit::kCount, Better::kNeither, "the full model's parameters"},
      {"shard_files", Unit::kCount, Better::kNeither, "safetensors files (model-0000k-of-0000n)"},
      {"replicas", Unit::kCount, Better::kNeither, "ranks x workers, each loading the whole model"},
      {"projected_ready_seconds", Unit::kSeconds, Better::kLower,
       "the slowest replica's time-to-ready at full size: full_model_bytes / (model_bytes / "
       "ready_seconds_max)"},
      {"allowed_ready_seconds", Unit::kSeconds, Better::kNeither, "ready_budget (when set)"},
      {"required_read_bytes_per_s", Unit::kBytesPerSecond, Better::kNeither,
       "per replica: full_model_bytes / ready_budget (when set)"},
      {"ready_budget_margin", Unit::kRatio, Better::kHigher,
       "ready_budget / projected_ready_seconds (when set); >= 1 passes"},
      {"corrupt_files", Unit::kCount, Better::kLower,
       "files missing, unreadable, with a bad header or a tensor byte that differs"},
      {"verified_bytes", Unit::kBytes, Better::kNeither, "tensor bytes checked against their content"},
      {"verify_bytes_per_s", Unit::kBytesPerSecond, Better::kHigher, "bytes checked per second of checking"},
      {"header_seconds_max", Unit::kSeconds, Better::kLower,
       "one replica's time reading and parsing its files' headers, the most of any"},
      {"cache_resident_fraction", Unit::kFraction, Better::kLower,
       "of the files, the fraction in the page cache after dropping it, before loading"},
      {"write_seconds", Unit::kSeconds, Better::kNeither,
       "setup: writing the files (the slowest rank's share), not part of time-to-ready"},
      {"latency_p50_s", Unit::kSeconds, Better::kLower,
       "per-block read (mmap: copy out of the mapping), median"},
      {"latency_p99_s", Unit::kSeconds, Better::kLower, "per-block read, 99th percentile"},
      {"latency_max_s", Unit::kSeconds, Better::kLower, "per-block read, max"},
  };
  return kMetrics;
}

}  // namespace iofab
