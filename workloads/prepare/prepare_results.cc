#include "workloads/prepare/prepare_results.h"

#include <algorithm>

#include "harness/comm/wire.h"

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

void summarize_prepare(const std::vector<PrepareRankReport>& ranks, PhaseResult* result, Status* worst) {
  PipelineFigures t;
  uint64_t cache_bytes = 0, resident = 0;
  double generate_seconds = 0;
  json per_rank = json::array();
  for (size_t i = 0; i < ranks.size(); ++i) {
    const PrepareRankReport& r = ranks[i];
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
    cache_bytes += r.cache_bytes;
    resident += r.resident_bytes;
    generate_seconds = std::max(generate_seconds, r.generate_seconds);
    const double secs = static_cast<double>(f.wall_ns) * 1e-9;
    per_rank.push_back({{"rank", i},
                        {"samples", f.samples},
                        {"input_bytes", f.input_bytes},
                        {"output_bytes", f.output_bytes},
                        {"seconds", secs},
                        {"input_bytes_per_s", per_s(static_cast<double>(f.input_bytes), secs)},
                        {"shards", f.shards},
                        {"bound_by", decide_bound_by(f.read, f.transform, f.write).stage},
                        {"error", r.status.ok() ? "" : r.status.message()}});
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
  const double secs = static_cast<double>(t.wall_ns) * 1e-9;
  const double cpu = t.read.cpu_seconds + t.transform.cpu_seconds + t.write.cpu_seconds;
  const double gb = static_cast<double>(t.input_bytes) / 1e9;
  auto& m = result->metrics;
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
  m["generate_seconds"] = generate_seconds;
  m["corrupt_samples"] = static_cast<double>(t.corrupt_samples);
  m["cache_resident_fraction"] =
      cache_bytes > 0 ? static_cast<double>(resident) / static_cast<double>(cache_bytes) : 0;

  const BoundBy bound = decide_bound_by(t.read, t.transform, t.write);
  auto& d = result->details;
  d["bound_by"] = {{"stage", bound.stage}, {"label", bound.label}, {"why", bound.why}};
  d["stages"] = {
      {"read", t.read.to_json()}, {"transform", t.transform.to_json()}, {"write", t.write.to_json()}};
  d["queues"] = {{"read_queue_high_water", t.read_queue_high_water},
                 {"write_queue_high_water", t.write_queue_high_water},
                 {"max_in_flight", t.max_in_flight}};
  d["per_rank"] = per_rank;
  if (t.corrupt_samples > 0 && result->failure.empty()) {
    result->failure = std::to_string(t.corrupt_samples) +
                      " raw samples were read back with a header that does not name them";
  }
}

const std::vector<MetricInfo>& prepare_metric_infos() {
  static const std::vector<MetricInfo> kMetrics = {
      {"input_samples_per_s", Unit::kCount, Better::kHigher,
       "raw samples prepared by all ranks / the slowest rank's time"},
      {"input_bytes_per_s", Unit::kBytesPerSecond, Better::kHigher,
       "raw sample bytes prepared / the slowest rank's time"},
      {"output_bytes_per_s", Unit::kBytesPerSecond, Better::kHigher,
       "shard bytes written (tar headers, padding, archive ends included) / the slowest rank's time"},
      {"cpu_seconds_per_gb", Unit::kSeconds, Better::kLower,
       "CPU time of every stage thread (user + system) per 1e9 raw sample bytes"},
      {"read_busy_fraction", Unit::kFraction, Better::kNeither, "readers' time in open + read / their time"},
      {"transform_busy_fraction", Unit::kFraction, Better::kNeither,
       "transformers' time transforming / their time"},
      {"write_busy_fraction", Unit::kFraction, Better::kNeither,
       "writers' time writing shards (fsync included) / their time"},
      {"compression_ratio", Unit::kRatio, Better::kNeither, "raw sample bytes / transformed sample bytes"},
      {"transform_cpu_seconds_per_gb", Unit::kSeconds, Better::kLower,
       "the transformers' CPU time per 1e9 raw sample bytes"},
      {"read_wait_room_fraction", Unit::kFraction, Better::kNeither,
       "readers' time waiting for room in the read queue"},
      {"transform_wait_input_fraction", Unit::kFraction, Better::kNeither,
       "transformers' time waiting for a raw sample"},
      {"transform_wait_room_fraction", Unit::kFraction, Better::kNeither,
       "transformers' time waiting for room in the write queue"},
      {"write_wait_input_fraction", Unit::kFraction, Better::kNeither,
       "writers' time waiting for a transformed sample"},
      {"input_samples", Unit::kCount, Better::kNeither, "raw samples prepared, all ranks"},
      {"input_bytes", Unit::kBytes, Better::kNeither, "raw sample bytes prepared, all ranks"},
      {"read_bytes", Unit::kBytes, Better::kNeither, "bytes read from the raw files (each padded to 4 KiB)"},
      {"output_bytes", Unit::kBytes, Better::kNeither, "bytes written to the shards"},
      {"shards", Unit::kCount, Better::kNeither, "shards written, all ranks"},
      {"cpu_seconds", Unit::kSeconds, Better::kNeither, "CPU time of every stage thread, all ranks"},
      {"prepare_seconds", Unit::kSeconds, Better::kLower,
       "the slowest rank's pipeline time, first read to last shard's end"},
      {"generate_seconds", Unit::kSeconds, Better::kNeither, "making the raw dataset, never prepare time"},
      {"corrupt_samples", Unit::kCount, Better::kLower, "raw samples read back with the wrong header"},
      {"cache_resident_fraction", Unit::kFraction, Better::kNeither,
       "buffered reads (direct: false): share of the raw files in the page cache when the pipeline started "
       "(after the drop)"},
  };
  return kMetrics;
}

}  // namespace iofab
