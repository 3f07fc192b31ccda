#include "workloads/prepare/prepare_phase.h"

#include <algorithm>

#include "harness/comm/agree.h"
#include "harness/comm/rank_gather.h"
#include "harness/core/checked_math.h"
#include "harness/engines/engine_choice.h"
#include "harness/engines/io_driver.h"
#include "harness/phase/io_params.h"
#include "harness/phase/params.h"
#include "harness/phase/reducibility_params.h"
#include "workloads/dataset/dataset.h"
#include "workloads/dataset/dataset_params.h"
#include "workloads/prepare/prepare_pipeline.h"
#include "workloads/prepare/prepare_results.h"
#include "workloads/prepare/prepare_tar.h"

namespace iofab {
namespace {

struct PrepareParams {
  DatasetSpec dataset;  // the raw dataset: files layout
  std::string engine = "auto";
  PipelineConfig pipeline;
  bool drop_cache = true;
};

// Folders below the phase's own.
constexpr const char* kRawFolder = "raw";
constexpr const char* kShardFolder = "shards";

class PreparePhase final : public Phase {
 public:
  explicit PreparePhase(PrepareParams p) : p_(std::move(p)) {}

  std::optional<uint64_t> planned_bytes(int ranks) const override {
    // The raw dataset and the shards are both there at the end. A shard's bytes are at most each
    // sample's zstd bound (size + size / 128 + 512), its header and padding (1 KiB) and, per shard,
    // the archive's end and the O_DIRECT tail (5 KiB + a block).
    const uint64_t raw = dataset_bytes_on_disk(p_.dataset);
    const auto out = checked_add(checked_add(raw, raw / 128), checked_mul(p_.dataset.num_samples, 1536));
    if (!out) return std::nullopt;
    const uint64_t shards =
        *out / p_.pipeline.shard_size + static_cast<uint64_t>(ranks) * p_.pipeline.writers;
    return checked_add(checked_add(raw, out), checked_mul(shards, 5120 + p_.pipeline.block_size));
  }

  Status run(PhaseContext& ctx, PhaseResult* result) override;

 private:
  // The phase's folders below ctx.phase_name, by name.
  struct Folders {
    std::string raw, raw_data, shards;
  };

  Status make_folders(PhaseContext& ctx, const Folders& f) const;
  Status generate_raw(PhaseContext& ctx, const Folders& f, const DatasetLayout& layout,
                      PrepareRankReport* local) const;
  Status run_pipeline(PhaseContext& ctx, const Folders& f, const DatasetLayout& layout,
                      std::vector<uint64_t> samples, PrepareRankReport* local) const;
  void describe(const PhaseContext& ctx, const DatasetLayout& layout, PhaseResult* result) const;

  PrepareParams p_;
};

// Every rank makes the folders (one that exists is fine), so none waits on another.
Status PreparePhase::make_folders(PhaseContext& ctx, const Folders& f) const {
  Status mine = ctx.store->make_folder(ctx.phase_name);
  for (const std::string& folder : {f.raw, f.raw_data, f.shards}) {
    if (mine.ok()) mine = ctx.store->make_folder(folder);
  }
  return agree(ctx.comm, mine);
}

// The raw dataset, timed on its own (generate_seconds), from a barrier to the agreement that every rank
// finished; then, for buffered reads, this rank's files' cached pages dropped and what stays counted (cold:
// the raw files arrived long ago). O_DIRECT reads come from the device whatever is cached, and the pass
// costs a few calls per small file: it is skipped.
Status PreparePhase::generate_raw(PhaseContext& ctx, const Folders& f, const DatasetLayout& layout,
                                  PrepareRankReport* local) const {
  Comm& comm = ctx.comm;
  Status st = comm.barrier();
  if (!st.ok()) return st;
  const uint64_t g0 = now_ns();
  GenerateOptions go;
  go.rank = comm.rank();
  go.ranks = comm.size();
  go.threads = p_.pipeline.readers;
  go.stop = &ctx.stop;
  go.progress = &ctx.progress.done_bytes;
  uint64_t written = 0;
  st = agree(comm, generate_dataset_part(*ctx.store, f.raw_data, layout, go, &written));
  local->generate_seconds = static_cast<double>(now_ns() - g0) * 1e-9;
  if (!st.ok() || p_.pipeline.direct) return st;
  CacheCounts cc;
  Status pass = dataset_cache_pass(*ctx.store, f.raw_data, layout, static_cast<uint64_t>(comm.rank()),
                                   static_cast<uint64_t>(comm.size()), p_.drop_cache, &cc);
  local->cache_bytes = cc.bytes;
  local->resident_bytes = cc.resident_bytes;
  local->drop_error = cc.drop_error;
  return agree(comm, pass);
}

// The timed pipeline over this rank's samples, into its shards.
Status PreparePhase::run_pipeline(PhaseContext& ctx, const Folders& f, const DatasetLayout& layout,
                                  std::vector<uint64_t> samples, PrepareRankReport* local) const {
  std::string engine;
  Status s = engine_for_store(*ctx.store, p_.engine, &engine);
  PipelineIo io;
  io.store = ctx.store;
  io.raw_data = f.raw_data;
  io.layout = &layout;
  io.samples = std::move(samples);
  io.out_folder = f.shards;
  io.shard_prefix = "r" + std::to_string(ctx.comm.rank()) + "-";
  io.make_engine = [&ctx, engine](const EngineOptions& eo, std::unique_ptr<Engine>* out) {
    return make_phase_engine(ctx, engine, eo, out);
  };
  io.stop = &ctx.stop;
  io.progress = &ctx.progress.done_bytes;
  if (s.ok()) s = run_prepare_pipeline(p_.pipeline, io, &local->figures);
  return s;
}

// Rank 0's report beyond the figures: what was not measured, the dataset, the pipeline, the warning for
// buffered writes.
void PreparePhase::describe(const PhaseContext& ctx, const DatasetLayout& layout, PhaseResult* result) const {
  if (p_.pipeline.direct) result->metrics.erase("cache_resident_fraction");
  if (!engine_moves_data(p_.engine)) {
    // Nothing was read, so nothing was verified: not a 0 that was never measured.
    result->metrics.erase("corrupt_samples");
    result->warnings.push_back("engine " + p_.engine +
                               " moves no data: the raw samples were not verified (corrupt_samples is not "
                               "measured)");
  }
  const PipelineConfig& c = p_.pipeline;
  result->details["dataset"] = {
      {"files", layout.num_files()},           {"bytes", layout.total_bytes()},
      {"sample_bytes", layout.sample_bytes()}, {"max_sample_size", layout.max_sample_size()},
      {"spec", layout.spec().to_json()},       {"kept", ctx.keep}};
  result->details["data_reducibility"] = reducibility_details(p_.dataset.reduce, kRecordAlignment);
  result->details["pipeline"] = {{"readers", c.readers},
                                 {"transformers", c.transformers},
                                 {"writers", c.writers},
                                 {"queue_depth", c.queue_depth},
                                 {"transform", transform_name(c.transform.kind)},
                                 {"shard_format", "tar (WebDataset: one member <sample>.<ext> per sample)"}};
  if (c.transform.kind == TransformKind::kZstd) {
    result->details["pipeline"]["level"] = c.transform.level;
  } else {
    result->details["pipeline"]["cpu_per_mib"] = c.transform.cpu_per_mib;
  }
  if (!c.direct) {
    result->warnings.push_back(
        "buffered I/O (direct: false): shard writes may be absorbed by the page cache until each shard's "
        "fsync" +
        std::string(c.fsync ? "" : " (fsync: false: never)"));
  }
}

Status PreparePhase::run(PhaseContext& ctx, PhaseResult* result) {
  const uint64_t start = now_ns();
  Comm& comm = ctx.comm;
  const int rank = comm.rank();
  const int ranks = comm.size();
  const DatasetLayout layout(p_.dataset);
  Folders f;
  f.raw = join_store_path(ctx.phase_name, kRawFolder);
  f.raw_data = join_store_path(f.raw, kDataFolder);
  f.shards = join_store_path(ctx.phase_name, kShardFolder);
  PrepareRankReport local;

  Status st = make_folders(ctx, f);
  // This rank's files, for generation's progress and the pipeline's.
  std::vector<uint64_t> samples;
  for (uint64_t i = static_cast<uint64_t>(rank); i < layout.num_files(); i += static_cast<uint64_t>(ranks)) {
    samples.push_back(i);
  }
  ctx.progress.total_bytes.store(layout.total_bytes() / static_cast<uint64_t>(ranks) * 2);
  if (st.ok()) st = generate_raw(ctx, f, layout, &local);

  // The pipeline, from a barrier: every rank starts together.
  if (st.ok()) st = comm.barrier();
  // The folders, the raw dataset (generate_seconds) and the cache pass.
  add_setup(result, start, now_ns());
  if (st.ok()) st = run_pipeline(ctx, f, layout, std::move(samples), &local);
  // Every rank is done with the folder before rank 0 removes it. When stopping, the run folder's
  // removal after the report takes the files: results go out first.
  st.update(comm.barrier());
  if (!ctx.keep && !ctx.stop.load() && rank == 0) {
    Status rm = ctx.store->remove_tree(ctx.phase_name);
    if (st.ok() && !rm.ok()) st = rm;
  }

  local.status = st;
  std::vector<PrepareRankReport> all;
  Status g = gather_to_root(comm, local, &all);
  if (!g.ok()) return g;
  if (rank != 0) return st;
  Status worst = st;
  summarize_prepare(all, result, &worst);
  describe(ctx, layout, result);
  return worst;
}

}  // namespace

std::unique_ptr<Phase> parse_prepare(ParamReader& r) {
  PrepareParams p;
  DatasetSpec& ds = p.dataset;
  ds.layout = DatasetLayoutKind::kFiles;  // raw data: one file per sample
  read_sample_params(r, &ds);
  // The raw files' reducibility: what the zstd transform finds to compress (compression_ratio).
  ds.reduce = read_reducibility(r);
  ds.files_per_dir = static_cast<uint64_t>(r.integer("files_per_dir", 1024, 2, 10'000'000));
  const IoParams io = read_io_params(r, {.queue_depth = 16, .has_block_size = true});
  p.engine = io.engine;
  PipelineConfig& c = p.pipeline;
  c.direct = io.direct;
  c.block_size = io.block_size;
  c.queue_depth = io.queue_depth;
  c.readers = static_cast<unsigned>(r.integer("readers", std::max(io.workers, 2u), 1, 1024));
  c.transformers = static_cast<unsigned>(r.integer("transformers", 2, 1, 1024));
  c.writers = static_cast<unsigned>(r.integer("writers", 1, 1, 1024));
  c.shard_size = r.size("shard_size", 64ULL << 20, 4096, 1ULL << 40);
  c.fsync = r.boolean("fsync", true);
  p.drop_cache = r.boolean("drop_cache", true);
  const std::string transform = r.choice("transform", "zstd", {"zstd", "busy"});
  c.transform.kind = transform == "busy" ? TransformKind::kBusy : TransformKind::kZstd;
  const bool level_given = r.raw("level") != nullptr;
  const bool cpu_given = r.raw("cpu_per_mib") != nullptr;
  // zstd's levels: negative ones are its fast modes, 19 and up its slowest.
  c.transform.level = static_cast<int>(r.integer("level", 3, -7, 22));
  c.transform.cpu_per_mib = r.duration("cpu_per_mib", 0, 0, 3600);
  if (c.transform.kind == TransformKind::kZstd && cpu_given) {
    r.fail("cpu_per_mib", "applies only to transform: busy (zstd's cost is set by level)");
  }
  if (c.transform.kind == TransformKind::kBusy && level_given) {
    r.fail("level", "applies only to transform: zstd (busy's cost is set by cpu_per_mib)");
  }
  check_sample_params(r, ds);
  ds.resolve_size_bounds();
  return std::make_unique<PreparePhase>(std::move(p));
}

const std::vector<MetricInfo>& prepare_metrics() { return prepare_metric_infos(); }

}  // namespace iofab
