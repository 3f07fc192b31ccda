#include "workloads/checkpoint/manifest.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "harness/core/json_input.h"
#include "harness/phase/params.h"
#include "workloads/checkpoint/folder_layout.h"
#include "workloads/checkpoint/xxh3.h"

namespace iofab {

using nlohmann::json;

namespace {

bool is_uint(const json& j) {
  return j.is_number_unsigned() || (j.is_number_integer() && j.get<int64_t>() >= 0);
}

// [tensor, key, file_offset, bytes, tensor_offset, tensor_bytes, weights], in file order, inside the file.
Status parse_records(const json& arr, const std::string& path, uint64_t file_bytes,
                     std::vector<FileRecord>* out) {
  if (!arr.is_array()) return Status::Invalid(path + ": expected an array of records");
  uint64_t end = 0;
  for (size_t i = 0; i < arr.size(); ++i) {
    const json& r = arr[i];
    const std::string p = path + "[" + std::to_string(i) + "]";
    const char* form =
        ": expected [tensor name, 16 hex digits, file offset, bytes, tensor offset, tensor bytes, 0|1]";
    if (!r.is_array() || r.size() != 7 || !r[0].is_string() || !r[1].is_string())
      return Status::Invalid(p + form);
    for (size_t k = 2; k < 7; ++k) {
      if (!is_uint(r[k])) return Status::Invalid(p + form);
    }
    FileRecord f;
    f.tensor = r[0].get<std::string>();
    const std::optional<uint64_t> key = parse_xxh3_hex(r[1].get<std::string>());
    if (!key) return Status::Invalid(p + form);
    f.key = *key;
    f.file_offset = r[2].get<uint64_t>();
    f.bytes = r[3].get<uint64_t>();
    f.tensor_offset = r[4].get<uint64_t>();
    f.tensor_bytes = r[5].get<uint64_t>();
    f.weights = r[6].get<uint64_t>() != 0;
    if (f.file_offset < end || f.bytes > file_bytes || f.file_offset > file_bytes - f.bytes) {
      return Status::Invalid(p + ": bytes [" + std::to_string(f.file_offset) + ", +" +
                             std::to_string(f.bytes) + ") overlap the record before or pass the file's " +
                             std::to_string(file_bytes) + " bytes");
    }
    if (f.tensor_bytes != 0 &&
        (f.tensor_offset > f.tensor_bytes || f.bytes > f.tensor_bytes - f.tensor_offset)) {
      return Status::Invalid(p + ": the piece passes the end of its tensor");
    }
    end = f.file_offset + f.bytes;
    out->push_back(std::move(f));
  }
  return Status::Ok();
}

}  // namespace

uint64_t Manifest::total_bytes() const {
  uint64_t t = 0;
  for (const auto& s : shards) t += s.bytes;
  return t;
}

double Manifest::full_bytes() const {
  return full_checkpoint_bytes > 0 ? full_checkpoint_bytes : static_cast<double>(total_bytes());
}

std::string manifest_to_json_text(const Manifest& m) {
  json shards = json::array();
  for (const auto& s : m.shards) {
    json e = {{"name", s.name},
              {"bytes", s.bytes},
              {"xxh3", xxh3_hex(s.xxh3)},
              {"rank", s.rank},
              {"worker", s.worker}};
    if (s.plan_rank >= 0) e["plan_rank"] = s.plan_rank;
    if (!s.records.empty()) {
      // One short array a tensor: a 64-rank plan holds ~50,000 of them.
      json recs = json::array();
      for (const FileRecord& r : s.records) {
        recs.push_back({r.tensor, xxh3_hex(r.key), r.file_offset, r.bytes, r.tensor_offset, r.tensor_bytes,
                        r.weights ? 1 : 0});
      }
      e["records"] = std::move(recs);
    }
    shards.push_back(std::move(e));
  }
  json j = {{"format", kCheckpointManifestFormat},
            {"version", kManifestVersion},
            {"hash", "xxh3-64"},
            {"step", m.step},
            {"phase", m.phase},
            {"created", m.created},
            {"committed_unix_ns", m.committed_unix_ns},
            {"total_bytes", m.total_bytes()},
            {"full_checkpoint_bytes", m.full_checkpoint_bytes},
            {"scale", m.scale},
            {"shards", shards}};
  if (m.layout != CheckpointLayoutKind::kShards) j["layout"] = layout_kind_name(m.layout);
  if (m.model) {
    j["model"] = to_json(*m.model);
    j["replica_writer"] = m.replica_writer;
    j["seed"] = m.seed;
    if (m.reduce.any()) {
      j["compressibility"] = m.reduce.compressibility;
      j["dedup"] = m.reduce.dedup;
    }
  }
  // A model's records run to ~100,000 short arrays: one line each would make the manifest 10x longer.
  const bool records =
      std::any_of(m.shards.begin(), m.shards.end(), [](const ShardEntry& e) { return !e.records.empty(); });
  return j.dump(records ? -1 : 1) + "\n";
}

namespace {

// format, version and hash: what says this is a manifest this iofab reads.
Status check_manifest_header(const json& j) {
  if (j.value("format", json()) != kCheckpointManifestFormat) {
    return Status::Invalid("manifest.format: expected \"" + std::string(kCheckpointManifestFormat) + "\", got " +
                           describe_json_value(j.value("format", json())));
  }
  if (!j.contains("version") || !j["version"].is_number_integer() ||
      j["version"].get<int64_t>() != kManifestVersion) {
    return Status::Invalid("manifest.version: expected " + std::to_string(kManifestVersion) +
                           " (this iofab reads only that), got " +
                           describe_json_value(j.value("version", json())));
  }
  if (j.contains("hash") && j["hash"] != "xxh3-64") {
    return Status::Invalid("manifest.hash: expected \"xxh3-64\", got " + describe_json_value(j["hash"]));
  }
  return Status::Ok();
}

// step, phase, created, committed_unix_ns, full_checkpoint_bytes and scale.
Status parse_manifest_step(const json& j, Manifest* m) {
  if (!j.contains("step") || !is_uint(j["step"])) {
    return Status::Invalid("manifest.step: expected a step number, got " +
                           describe_json_value(j.value("step", json())));
  }
  m->step = j["step"].get<uint64_t>();
  if (j.contains("phase")) {
    if (!j["phase"].is_string()) return Status::Invalid("manifest.phase: expected a string");
    m->phase = j["phase"].get<std::string>();
  }
  if (j.contains("created")) {
    if (!j["created"].is_string())
      return Status::Invalid("manifest.created: expected an RFC 3339 time string");
    m->created = j["created"].get<std::string>();
  }
  if (j.contains("committed_unix_ns")) {
    if (!is_uint(j["committed_unix_ns"]))
      return Status::Invalid("manifest.committed_unix_ns: expected an integer");
    m->committed_unix_ns = j["committed_unix_ns"].get<uint64_t>();
  }
  for (const char* k : {"full_checkpoint_bytes", "scale"}) {
    if (!j.contains(k)) continue;
    if (!j[k].is_number() || !std::isfinite(j[k].get<double>()) || j[k].get<double>() < 0) {
      return Status::Invalid(std::string("manifest.") + k + ": expected a non-negative number, got " +
                             describe_json_value(j[k]));
    }
  }
  m->full_checkpoint_bytes = j.value("full_checkpoint_bytes", 0.0);
  m->scale = j.value("scale", 1.0);
  if (m->scale < 1)
    return Status::Invalid("manifest.scale: expected a number >= 1, got " + describe_json_value(j["scale"]));
  return Status::Ok();
}

// One entry of shards (p: "manifest.shards[3]"); names: the names seen so far, none listed twice.
Status parse_shard_entry(const json& s, const std::string& p, std::set<std::string, std::less<>>* names,
                         ShardEntry* out) {
  if (!s.is_object()) return Status::Invalid(p + ": expected an object {name, bytes, xxh3}");
  ShardEntry e;
  if (!s.contains("name") || !s["name"].is_string() || !is_safe_shard_name(s["name"].get<std::string>())) {
    return Status::Invalid(p + ".name: expected a file name, or folder/file, inside the step folder, got " +
                           describe_json_value(s.value("name", json())));
  }
  e.name = s["name"].get<std::string>();
  if (!names->insert(e.name).second) return Status::Invalid(p + ".name: \"" + e.name + "\" is listed twice");
  if (!s.contains("bytes") || !is_uint(s["bytes"])) {
    return Status::Invalid(p + ".bytes: expected a size in bytes, got " +
                           describe_json_value(s.value("bytes", json())));
  }
  e.bytes = s["bytes"].get<uint64_t>();
  std::optional<uint64_t> h;
  if (s.contains("xxh3") && s["xxh3"].is_string()) h = parse_xxh3_hex(s["xxh3"].get<std::string>());
  if (!h) {
    return Status::Invalid(p + ".xxh3: expected 16 hex digits, got " +
                           describe_json_value(s.value("xxh3", json())));
  }
  e.xxh3 = *h;
  if (s.contains("rank") && s["rank"].is_number_integer()) e.rank = s["rank"].get<int>();
  if (s.contains("worker") && s["worker"].is_number_integer()) e.worker = s["worker"].get<int>();
  if (s.contains("plan_rank") && s["plan_rank"].is_number_integer())
    e.plan_rank = s["plan_rank"].get<int64_t>();
  if (s.contains("records")) {
    if (Status rs = parse_records(s["records"], p + ".records", e.bytes, &e.records); !rs.ok()) return rs;
  }
  *out = std::move(e);
  return Status::Ok();
}

// shards, and total_bytes (when given) as their sum.
Status parse_manifest_shards(const json& j, Manifest* m) {
  if (!j.contains("shards") || !j["shards"].is_array() || j["shards"].empty()) {
    return Status::Invalid("manifest.shards: expected a non-empty array of {name, bytes, xxh3}");
  }
  std::set<std::string, std::less<>> names;
  const json& arr = j["shards"];
  for (size_t i = 0; i < arr.size(); ++i) {
    ShardEntry e;
    if (Status s = parse_shard_entry(arr[i], "manifest.shards[" + std::to_string(i) + "]", &names, &e);
        !s.ok())
      return s;
    m->shards.push_back(std::move(e));
  }
  if (j.contains("total_bytes")) {
    if (!is_uint(j["total_bytes"]) || j["total_bytes"].get<uint64_t>() != m->total_bytes()) {
      return Status::Invalid("manifest.total_bytes: " + describe_json_value(j["total_bytes"]) +
                             " is not the sum of the shards' bytes (" + std::to_string(m->total_bytes()) +
                             ")");
    }
  }
  return Status::Ok();
}

Status parse_manifest_layout(const json& l, Manifest* m) {
  for (auto k : {CheckpointLayoutKind::kShards, CheckpointLayoutKind::kDcp, CheckpointLayoutKind::kMegatron,
                 CheckpointLayoutKind::kTorchSave}) {
    if (l.is_string() && l.get<std::string>() == layout_kind_name(k)) {
      m->layout = k;
      return Status::Ok();
    }
  }
  return Status::Invalid(
      "manifest.layout: expected \"shards\", \"dcp\", \"megatron\" or \"torch_save\", got " +
      describe_json_value(l));
}

// model, with the content seed, the reducibility and the replica writer beside it.
Status parse_manifest_model(const json& j, Manifest* m) {
  TransformerSpec spec;
  if (Status ms = parse_model_spec(j["model"], "manifest.model", &spec); !ms.ok()) return ms;
  m->model = spec;
  if (!j.contains("seed") || !is_uint(j["seed"])) {
    return Status::Invalid("manifest.seed: expected the content seed (an integer) beside model, got " +
                           describe_json_value(j.value("seed", json())));
  }
  m->seed = j["seed"].get<uint64_t>();
  for (auto [key, field] :
       {std::pair{"compressibility", &m->reduce.compressibility}, std::pair{"dedup", &m->reduce.dedup}}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_number() || !(j[key].get<double>() >= 0 && j[key].get<double>() < 1)) {
      return Status::Invalid(std::string("manifest.") + key + ": expected a fraction in [0, 1), got " +
                             describe_json_value(j[key]));
    }
    *field = j[key].get<double>();
  }
  if (j.contains("replica_writer") && j["replica_writer"].is_string())
    m->replica_writer = j["replica_writer"].get<std::string>();
  return Status::Ok();
}

}  // namespace

Status parse_manifest(std::string_view text, Manifest* out) {
  json j;
  if (Status s = parse_json_input(text, {}, &j); !s.ok()) return Status::Invalid("manifest: " + s.message());
  if (!j.is_object()) return Status::Invalid("manifest: not a JSON object");
  Manifest m;
  Status s = check_manifest_header(j);
  if (s.ok()) s = parse_manifest_step(j, &m);
  if (s.ok()) s = parse_manifest_shards(j, &m);
  if (s.ok() && j.contains("layout")) s = parse_manifest_layout(j["layout"], &m);
  if (s.ok() && j.contains("model")) s = parse_manifest_model(j, &m);
  if (!s.ok()) return s;
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace iofab
