#include "workloads/prepare/prepare_results.h"

#include <algorithm>

#include "harness/comm/wire.h"
#include "harness/phase/metric_rows.h"

namespace iofab {

using nlohmann::json;

namespace {

json stage_wire(const StageFigures& f) { return f.to_json(); }

Status stage_from_wire(const json& j, StageFigures* f) {
  WireReader r(j);
  r.field("threads", &f->threads)
      .field("thread_seconds", &f->thread_seconds)
      .field("busy_seconds", &f->busy_seconds)
      .field("wait_input_seconds", &f->wait_input_seconds)
      .field("wait_room_seconds", &f->wait_room_seconds)
      .field("cpu_seconds", &f->cpu_seconds)
      .field("items", &f->items);
  return r.status();
}

double per_s(double v, double s) { return s > 0 ? v / s : 0; }

}  // namespace

json to_wire(const PrepareRankReport& r) {
  const PipelineFigures& f = r.figures;
  return {{"read", stage_wire(f.read)},
          {"transform", stage_wire(f.transform)},
          {"write", stage_wire(f.write)},
          {"wall_ns", f.wall_ns},
          {"samples", f.samples},
          {"input_bytes", f.input_bytes},
          {"read_bytes", f.read_bytes},
          {"payload_bytes", f.payload_bytes},
          {"output_bytes", f.output_bytes},
          {"shards", f.shards},
          {"corrupt_samples", f.corrupt_samples},
          {"read_queue_high_water", f.read_queue_high_water},
          {"write_queue_high_water", f.write_queue_high_water},
          {"max_in_flight", f.max_in_flight},
          {"cache_bytes", r.cache_bytes},
          {"resident_bytes", r.resident_bytes},
          {"drop_error", r.drop_error},
          {"generate_seconds", r.generate_seconds},
          {"status", iofab::to_wire(r.status)}};
}

Status from_wire(const json& j, PrepareRankReport* out) {
  PipelineFigures& f = out->figures;
  WireReader r(j);
  r.field("wall_ns", &f.wall_ns)
      .field("samples", &f.samples)
      .field("input_bytes", &f.input_bytes)
      .field("read_bytes", &f.read_bytes)
      .field("payload_bytes", &f.payload_bytes)
      .field("output_bytes", &f.output_bytes)
      .field("shards", &f.shards)
      .field("corrupt_samples", &f.corrupt_samples)
      .field("read_queue_high_water", &f.read_queue_high_water)
      .field("write_queue_high_water", &f.write_queue_high_water)
      .field("max_in_flight", &f.max_in_flight)
      .field("cache_bytes", &out->cache_bytes)
      .field("resident_bytes", &out->resident_bytes)
      .field("drop_error", &out->drop_error)
      .field("generate_seconds", &out->generate_seconds)
      .field("status", &out->status);
  if (!r.status().ok()) return r.status();
  for (auto [key, stage] : {std::pair{"read", &f.read}, {"transform", &f.transform}, {"write", &f.write}}) {
    if (!j.contains(key)) return Status::Invalid(std::string("missing field ") + key);
    if (Status s = stage_from_wire(j[key], stage); !s.ok())
      return Status::Invalid(std::string(key) + ": " + s.message());
  }
  return Status::Ok();
}

namespace {

// The ranks' figures summed (times: the slowest rank's), with the cache counters.
struct PrepareTotals {
  PipelineFigures t;
  uint64_t cache_bytes = 0;
  uint64_t resident = 0;
  double generate_seconds = 0;
};

void add_rank(const PrepareRankReport& r, PrepareTotals* totals) {
  PipelineFigures& t = totals->t;
  const PipelineFigures& f = r.figures;
  t.read.merge(f.read);
  t.transform.merge(f.transform);
  t.write.merge(f.write);
  t.wall_ns = std::max(t.wall_ns, f.wall_ns);
  t.samples += f.samples;
  t.input_bytes += f.input_bytes;
  t.read_bytes += f.read_bytes;
  t.payload_bytes += f.payload_bytes;
  t.output_bytes += f.output_bytes;
  t.shards += f.shards;
  t.corrupt_samples += f.corrupt_samples;
  t.read_queue_high_water = std::max(t.read_queue_high_water, f.read_queue_high_water);
  t.write_queue_high_water = std::max(t.write_queue_high_water, f.write_queue_high_water);
  t.max_in_flight = std::max(t.max_in_flight, f.max_in_flight);
  totals->cache_bytes += r.cache_bytes;
  totals->resident += r.resident_bytes;
  totals->generate_seconds = std::max(totals->generate_seconds, r.generate_seconds);
}

json rank_row(size_t i, const PrepareRankReport& r) {
  const PipelineFigures& f = r.figures;
  const double secs = static_cast<double>(f.wall_ns) * 1e-9;
  return {{"rank", i},
          {"samples", f.samples},
          {"input_bytes", f.input_bytes},
          {"output_bytes", f.output_bytes},
          {"seconds", secs},
          {"input_bytes_per_s", per_s(static_cast<double>(f.input_bytes), secs)},
          {"shards", f.shards},
          {"bound_by", decide_bound_by(f.read, f.transform, f.write).stage},
          {"error", r.status.ok() ? "" : r.status.message()}};
}

// A rank's warning (its raw files' pages not dropped) and error (the first one a rank reports wins).
void note_rank_problems(size_t i, const PrepareRankReport& r, PhaseResult* result, Status* worst) {
  if (!r.drop_error.empty()) {
    result->warnings.push_back("rank " + std::to_string(i) +
                               ": the raw files' cached pages were not dropped (" + r.drop_error +
                               "): reads may come from the page cache");
  }
  if (worst->ok() && !r.status.ok() && !r.status.message().empty()) {
    *worst = r.status.code() == Status::Code::kInterrupted
                 ? Status::Interrupted(r.status.message())
                 : Status::IoError("rank " + std::to_string(i) + ": " + r.status.message());
  }
}

void put_prepare_metrics(const PrepareTotals& totals, std::map<std::string, double>* metrics) {
  const PipelineFigures& t = totals.t;
  const double secs = static_cast<double>(t.wall_ns) * 1e-9;
  const double cpu = t.read.cpu_seconds + t.transform.cpu_seconds + t.write.cpu_seconds;
  const double gb = static_cast<double>(t.input_bytes) / 1e9;
  auto& m = *metrics;
  m["input_samples_per_s"] = per_s(static_cast<double>(t.samples), secs);
  m["input_bytes_per_s"] = per_s(static_cast<double>(t.input_bytes), secs);
  m["output_bytes_per_s"] = per_s(static_cast<double>(t.output_bytes), secs);
  m["cpu_seconds_per_gb"] = gb > 0 ? cpu / gb : 0;
  m["read_busy_fraction"] = t.read.busy_fraction();
  m["transform_busy_fraction"] = t.transform.busy_fraction();
  m["write_busy_fraction"] = t.write.busy_fraction();
  m["compression_ratio"] =
      t.payload_bytes > 0 ? static_cast<double>(t.input_bytes) / static_cast<double>(t.payload_bytes) : 0;
  m["transform_cpu_seconds_per_gb"] = gb > 0 ? t.transform.cpu_seconds / gb : 0;
  m["read_wait_room_fraction"] = t.read.wait_room_fraction();
  m["transform_wait_input_fraction"] = t.transform.wait_input_fraction();
  m["transform_wait_room_fraction"] = t.transform.wait_room_fraction();
  m["write_wait_input_fraction"] = t.write.wait_input_fraction();
  m["input_samples"] = static_cast<double>(t.samples);
  m["input_bytes"] = static_cast<double>(t.input_bytes);
  m["read_bytes"] = static_cast<double>(t.read_bytes);
  m["output_bytes"] = static_cast<double>(t.output_bytes);
  m["shards"] = static_cast<double>(t.shards);
  m["cpu_seconds"] = cpu;
  m["prepare_seconds"] = secs;
  m["generate_seconds"] = totals.generate_seconds;
  m["corrupt_samples"] = static_cast<double>(t.corrupt_samples);
  m["cache_resident_fraction"] =
      totals.cache_bytes > 0 ? static_cast<double>(totals.resident) / static_cast<double>(totals.cache_bytes)
                             : 0;
}

void put_prepare_details(const PipelineFigures& t, json per_rank, PhaseResult* result) {
  const BoundBy bound = decide_bound_by(t.read, t.transform, t.write);
  auto& d = result->details;
  d["bound_by"] = {{"stage", bound.stage}, {"label", bound.label}, {"why", bound.why}};
  d["stages"] = {
      {"read", t.read.to_json()}, {"transform", t.transform.to_json()}, {"write", t.write.to_json()}};
  d["queues"] = {{"read_queue_high_water", t.read_queue_high_water},
                 {"write_queue_high_water", t.write_queue_high_water},
                 {"max_in_flight", t.max_in_flight}};
  d["per_rank"] = std::move(per_rank);
  if (t.corrupt_samples > 0 && result->failure.empty()) {
    result->failure = std::to_string(t.corrupt_samples) +
                      " raw samples were read back with a header that does not name them";
  }
}

}  // namespace

void summarize_prepare(const std::vector<PrepareRankReport>& ranks, PhaseResult* result, Status* worst) {
  PrepareTotals totals;
  json per_rank = json::array();
  for (size_t i = 0; i < ranks.size(); ++i) {
    add_rank(ranks[i], &totals);
    per_rank.push_back(rank_row(i, ranks[i]));
    note_rank_problems(i, ranks[i], result, worst);
  }
  put_prepare_metrics(totals, &result->metrics);
  put_prepare_details(totals.t, std::move(per_rank), result);
}

namespace {

// prepare_metric_infos's rows in 2 parts, in the report's order (harness/phase/metric_rows.h).
std::vector<MetricInfo> prepare_metric_rows_1() {
  return {
      {.name = "input_samples_per_s",
       .unit = Unit::kCount,
       .better = Better::kHigher,
       .description = "raw samples prepared by all ranks / the slowest rank's time"},
      {.name = "input_bytes_per_s",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kHigher,
       .description = "raw sample bytes prepared / the slowest rank's time"},
      {.name = "output_bytes_per_s",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kHigher,
       .description =
           "shard bytes written (tar headers, padding, archive ends included) / the slowest rank's time"},
      {.name = "cpu_seconds_per_gb",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "CPU time of every stage thread (user + system) per 1e9 raw sample bytes"},
      {.name = "read_busy_fraction",
       .unit = Unit::kFraction,
       .better = Better::kNeither,
       .description = "readers' time in open + read / their time"},
      {.name = "transform_busy_fraction",
       .unit = Unit::kFraction,
       .better = Better::kNeither,
       .description = "transformers' time transforming / their time"},
      {.name = "write_busy_fraction",
       .unit = Unit::kFraction,
       .better = Better::kNeither,
       .description = "writers' time writing shards (fsync included) / their time"},
      {.name = "compression_ratio",
       .unit = Unit::kRatio,
       .better = Better::kNeither,
       .description = "raw sample bytes / transformed sample bytes"},
      {.name = "transform_cpu_seconds_per_gb",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "the transformers' CPU time per 1e9 raw sample bytes"},
      {.name = "read_wait_room_fraction",
       .unit = Unit::kFraction,
       .better = Better::kNeither,
       .description = "readers' time waiting for room in the read queue"},
      {.name = "transform_wait_input_fraction",
       .unit = Unit::kFraction,
       .better = Better::kNeither,
       .description = "transformers' time waiting for a raw sample"},
      {.name = "transform_wait_room_fraction",
       .unit = Unit::kFraction,
       .better = Better::kNeither,
       .description = "transformers' time waiting for room in the write queue"},
      {.name = "write_wait_input_fraction",
       .unit = Unit::kFraction,
       .better = Better::kNeither,
       .description = "writers' time waiting for a transformed sample"},
      {.name = "input_samples",
       .unit = Unit::kCount,
       .better = Better::kNeither,
       .description = "raw samples prepared, all ranks"},
  };
}

std::vector<MetricInfo> prepare_metric_rows_2() {
  return {
      {.name = "input_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "raw sample bytes prepared, all ranks"},
      {.name = "read_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "bytes read from the raw files (each padded to 4 KiB)"},
      {.name = "output_bytes",
       .unit = Unit::kBytes,
       .better = Better::kNeither,
       .description = "bytes written to the shards"},
      {.name = "shards",
       .unit = Unit::kCount,
       .better = Better::kNeither,
       .description = "shards written, all ranks"},
      {.name = "cpu_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kNeither,
       .description = "CPU time of every stage thread, all ranks"},
      {.name = "prepare_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "the slowest rank's pipeline time, first read to last shard's end"},
      {.name = "generate_seconds",
       .unit = Unit::kSeconds,
       .better = Better::kNeither,
       .description = "making the raw dataset, never prepare time"},
      {.name = "corrupt_samples",
       .unit = Unit::kCount,
       .better = Better::kLower,
       .description = "raw samples read back with the wrong header"},
      {.name = "cache_resident_fraction",
       .unit = Unit::kFraction,
       .better = Better::kNeither,
       .description = "buffered reads (direct: false): share of the raw files in the page cache when the "
                      "pipeline started "
                      "(after the drop)"},
  };
}

}  // namespace

const std::vector<MetricInfo>& prepare_metric_infos() {
  static const std::vector<MetricInfo> kMetrics =
      joined_rows({prepare_metric_rows_1(), prepare_metric_rows_2()});
  return kMetrics;
}

}  // namespace iofab
