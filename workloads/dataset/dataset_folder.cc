// The dataset's folder as a whole: what is there (inspect), who uses it (the
// lock) and the manifest that marks a generation finished.
#include <set>

#include "harness/core/json_input.h"
#include "workloads/dataset/dataset.h"
#include "workloads/dataset/dataset_manifest.h"

namespace iofab {

using nlohmann::json;

namespace {

// A complete manifest lists every file its generation wrote; one whose spec names more files than data/
// holds does not describe this folder (edited by hand, or copied from elsewhere): nothing is removed on its
// word. The walk stops once the folder holds as many as claimed, so a true claim costs what reuse costs.
Status check_claim(Store& store, const std::string& data, const json& spec, const std::atomic<bool>* stop,
                   std::string* lie) {
  DatasetSpec claimed;
  if (!spec_from_json(spec, &claimed)) return Status::Ok();  // unreadable: regeneration refuses it by name
  const DatasetNames names(claimed);
  uint64_t present = 0;
  if (Status s = count_dataset_files(store, data, names.num_files(), stop, &present); !s.ok()) return s;
  if (present >= names.num_files()) return Status::Ok();
  *lie =
      std::string("has a complete ") + kManifestName + " whose spec.num_samples (" +
      std::to_string(claimed.num_samples) + ") names " + std::to_string(names.num_files()) + " " +
      (claimed.layout == DatasetLayoutKind::kFiles ? "sample files" : "shards") + ", but its " + kDataFolder +
      "/ holds " + std::to_string(present) + " file" + (present == 1 ? "" : "s") +
      ": the manifest does not describe this folder (edited, or copied from another), so which files iofab "
      "made there is unknown; nothing was removed";
  return Status::Ok();
}

// The folder's entries but the lock. One iofab did not make, or data/ without a manifest, makes the
// folder foreign; no entry makes it empty. Returns whether that decided the state.
bool judge_entries(const std::set<std::string>& entries, DatasetDirState* state, std::string* why) {
  for (const auto& e : entries) {
    if (e != kManifestName && e != kManifestTemp && e != kDataFolder) {
      *state = DatasetDirState::kForeign;
      *why = "holds \"" + e + "\", which iofab did not make";
      return true;
    }
  }
  if (entries.empty()) {
    *state = DatasetDirState::kEmpty;
    return true;
  }
  if (!entries.count(kManifestName) && !entries.count(kManifestTemp)) {
    *state = DatasetDirState::kForeign;
    *why = std::string("holds data/ but no ") + kManifestName + ", so iofab did not make it";
    return true;
  }
  return false;
}

// Reads manifest (the complete one's name or the temporary one's) into *m; false, with why, when it is no
// iofab dataset manifest. Non-blocking and bounded (a FIFO named iofab-dataset.json must not hang the
// run); depth and repeated keys checked like every JSON iofab reads.
bool read_dataset_manifest(Store& store, std::string_view root, const char* manifest, json* m,
                           std::string* why) {
  std::string text;
  Status rs = read_manifest(store, join_store_path(root, manifest), &text);
  if (rs.ok()) rs = parse_json_input(text, {}, m);
  if (!rs.ok() || !m->is_object() || m->find("format") == m->end() || (*m)["format"] != kManifestFormat) {
    *why = std::string(manifest) + " is not an iofab dataset manifest" +
           (rs.ok() ? "" : " (" + rs.message() + ")");
    return false;
  }
  return true;
}

// A complete manifest of other parameters: stale, unless its spec claims files data/ does not hold
// (check_claim), which makes the folder foreign.
Status judge_other_spec(Store& store, const std::string& data, bool has_data, const json& m, const json& want,
                        const std::atomic<bool>* stop, DatasetDirState* state, std::string* why) {
  std::string lie;
  if (Status s = has_data ? check_claim(store, data, m.value("spec", json()), stop, &lie) : Status::Ok();
      !s.ok()) {
    return s;
  }
  if (!lie.empty()) {
    *state = DatasetDirState::kForeign;
    *why = std::move(lie);
    return Status::Ok();
  }
  *why =
      "an iofab dataset of other parameters (" + spec_difference(m.value("spec", json::object()), want) + ")";
  return Status::Ok();
}

// A matching manifest: every file there, a file of its size; else the dataset is stale (why says which).
Status judge_files(Store& store, const std::string& data, const DatasetLayout& layout,
                   const std::atomic<bool>* stop, DatasetDirState* state, std::string* why) {
  EntryInfo info;
  for (uint64_t f = 0; f < layout.num_files(); ++f) {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) return Status::Interrupted();
    const std::string path = layout.file_path(f);
    if (!store.stat(join_store_path(data, path), &info).ok() || info.kind != EntryKind::kFile ||
        info.size != layout.file_bytes(f)) {
      *why = "an iofab dataset missing or with a damaged " + path;
      return Status::Ok();
    }
  }
  *state = DatasetDirState::kMatches;
  return Status::Ok();
}

}  // namespace

Status inspect_dataset_dir(Store& store, std::string_view root, const DatasetLayout& layout,
                           DatasetDirState* state, std::string* why, const std::atomic<bool>* stop) {
  why->clear();
  std::vector<std::string> names;
  if (Status s = store.list(root, &names); !s.ok()) {
    return Status::FromCode(s.code(), "read dataset folder: " + s.message());
  }
  std::set<std::string> entries;
  for (auto& n : names) {
    if (n != kDatasetLockName) entries.insert(std::move(n));
  }
  if (judge_entries(entries, state, why)) return Status::Ok();
  const char* manifest = entries.count(kManifestName) ? kManifestName : kManifestTemp;
  json m;
  if (!read_dataset_manifest(store, root, manifest, &m, why)) {
    *state = DatasetDirState::kForeign;
    return Status::Ok();
  }
  *state = DatasetDirState::kStale;
  if (manifest != std::string(kManifestName) || m.find("complete") == m.end() || m["complete"] != true) {
    *why = "an incomplete iofab dataset (its generation did not finish)";
    return Status::Ok();
  }
  const json want = layout.spec().to_json();
  const std::string data = join_store_path(root, kDataFolder);
  EntryInfo info;
  const bool has_data = store.stat(data, &info).ok() && info.kind == EntryKind::kFolder;
  if (!m.contains("spec") || m["spec"] != want)
    return judge_other_spec(store, data, has_data, m, want, stop, state, why);
  if (!has_data) {
    *why = "an iofab dataset whose data/ folder is missing";
    return Status::Ok();
  }
  return judge_files(store, data, layout, stop, state, why);
}

Status lock_dataset_dir(Store& store, std::string_view root, const std::string& shown,
                        std::unique_ptr<StoreLock>* lock) {
  Status s = store.lock(join_store_path(root, kDatasetLockName), lock);
  if (s.code() == Status::Code::kUnavailable) return Status::Ok();  // no locks there: *lock stays null
  if (s.code() == Status::Code::kInvalidArgument) {
    return Status::Invalid("dataset_dir " + shown + " is in use by another iofab run (it holds " + shown +
                           "/" + kDatasetLockName +
                           "); runs cannot share a dataset_dir at the same time: wait for "
                           "that run to end, or give this one another dataset_dir; nothing was written");
  }
  return s;
}

void remove_dataset_lock(Store& store, std::string_view root, std::unique_ptr<StoreLock>* lock) {
  // Removed while still held, so no other run can take the lock on a file about to go. A lock file that
  // stays is harmless: the next run takes the lock on it.
  if (*lock != nullptr && (*lock)->created()) {
    store.remove(join_store_path(root, kDatasetLockName)).ignore_error();
  }
  lock->reset();
}

Status complete_manifest(Store& store, std::string_view root, const DatasetLayout& layout,
                         double generate_seconds) {
  return write_manifest(store, root, layout, true, generate_seconds);
}

}  // namespace iofab
