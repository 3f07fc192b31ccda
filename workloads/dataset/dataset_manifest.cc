#include "workloads/dataset/dataset_manifest.h"

#include "harness/core/json_input.h"
#include "harness/store/store_bytes.h"

namespace iofab {

using nlohmann::json;

constexpr int kFormatVersion = 1;

Status write_manifest(Store& store, std::string_view root, const DatasetLayout& layout, bool complete,
                      double generate_seconds) {
  json m = {{"format", kManifestFormat},
            {"version", kFormatVersion},
            {"complete", complete},
            {"spec", layout.spec().to_json()},
            {"files", layout.num_files()},
            {"bytes", layout.total_bytes()},
            {"sample_bytes", layout.sample_bytes()},
            {"generate_seconds", generate_seconds}};
  const std::string text = m.dump(2) + "\n";
  const std::string final_name = join_store_path(root, kManifestName);
  if (store.caps().commit_per_file) {
    // No rename: the object is written whole under its name, and exists only once its upload completes.
    if (Status s = store.remove(final_name); !s.ok()) return s;
    StoreFile f;
    if (Status s = store.create(final_name, {}, &f); !s.ok()) return s;
    return write_store_file(store, f, text);
  }
  const std::string temp = join_store_path(root, kManifestTemp);
  if (Status s = store.remove(temp); !s.ok()) return s;
  StoreFile f;
  if (Status s = store.create(temp, {}, &f); !s.ok()) return s;
  Status s = write_store_file(store, f, text);  // synced: its engine's fsync
  f = StoreFile();
  if (!s.ok()) return s;
  if (s = store.commit(temp, final_name); !s.ok()) return s;
  return store.sync_folder(root);
}

Status read_manifest(Store& store, std::string_view path, std::string* text) {
  StoreFile f;
  if (Status s = store.open(path, {}, &f); !s.ok()) return s;
  return read_store_file(store, f, kMaxDatasetManifestBytes, text);
}

// A manifest decides which files get deleted, so a value out of range is refused.
bool spec_from_json(const json& j, DatasetSpec* out) {
  if (!j.is_object()) return false;
  auto num = [&](const char* k, uint64_t lo, uint64_t hi, uint64_t* v) {
    if (!j.contains(k) || !j[k].is_number_unsigned()) return false;
    *v = j[k].get<uint64_t>();
    return *v >= lo && *v <= hi;
  };
  DatasetSpec s;
  const std::string layout = j.value("layout", "");
  const std::string dist = j.value("distribution", "");
  if (layout != "files" && layout != "shards") return false;
  s.layout = layout == "files" ? DatasetLayoutKind::kFiles : DatasetLayoutKind::kShards;
  if (!parse_distribution(dist, &s.distribution)) return false;
  if (!num("num_samples", 1, 1'000'000'000, &s.num_samples) ||
      !num("sample_size", 1, kMaxSampleSize, &s.sample_size) || !num("seed", 0, UINT64_MAX, &s.seed)) {
    return false;
  }
  if (s.distribution != SizeDistribution::kFixed &&
      (!num("sample_size_stdev", 0, kMaxSampleSize, &s.sample_size_stdev) ||
       !num("sample_size_min", 1, kMaxSampleSize, &s.sample_size_min) ||
       !num("sample_size_max", 1, kMaxSampleSize, &s.sample_size_max) ||
       s.sample_size_min > s.sample_size_max)) {
    return false;
  }
  if (s.layout == DatasetLayoutKind::kFiles
          ? !num("files_per_dir", 2, 10'000'000, &s.files_per_dir)
          : !num("samples_per_shard", 1, 1'000'000'000, &s.samples_per_shard)) {
    return false;
  }
  // Reducible data (absent: none).
  for (auto [key, field] :
       {std::pair{"compressibility", &s.reduce.compressibility}, std::pair{"dedup", &s.reduce.dedup}}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_number() || !(j[key].get<double>() >= 0 && j[key].get<double>() < 1)) return false;
    *field = j[key].get<double>();
  }
  s.resolve_size_bounds();
  *out = s;
  return true;
}

Status count_dataset_files(Store& store, const std::string& folder, uint64_t limit,
                           const std::atomic<bool>* stop, uint64_t* count) {
  std::vector<std::string> names;
  if (Status s = store.list(folder, &names); !s.ok()) return s;
  for (const auto& n : names) {
    if (*count >= limit) return Status::Ok();
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) return Status::Interrupted();
    const std::string path = join_store_path(folder, n);
    EntryInfo info;
    if (!store.stat(path, &info).ok()) continue;
    if (info.kind == EntryKind::kFile) ++*count;
    if (info.kind != EntryKind::kFolder) continue;
    if (Status s = count_dataset_files(store, path, limit, stop, count); !s.ok()) return s;
  }
  return Status::Ok();
}

std::string spec_difference(const json& had, const json& want) {
  std::string out;
  for (const auto& [k, v] : want.items()) {
    if (had.contains(k) && had[k] == v) continue;
    if (!out.empty()) out += ", ";
    out += k + " " + (had.contains(k) ? had[k].dump() : "(absent)") + " vs " + v.dump();
  }
  for (const auto& [k, v] : had.items()) {
    if (!want.contains(k)) out += (out.empty() ? "" : ", ") + k + " " + v.dump() + " vs (absent)";
  }
  return out;
}

}  // namespace iofab
