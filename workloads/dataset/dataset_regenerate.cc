// Regeneration over an old dataset: the files its manifests list go, and
// nothing else (docs/faults.md). A user's file beside them stays, with a
// note; one where the new dataset needs a path is refused, not removed.
#include <atomic>
#include <cerrno>

#include "harness/core/json_input.h"
#include "workloads/dataset/dataset.h"
#include "workloads/dataset/dataset_manifest.h"

namespace iofab {

using nlohmann::json;

namespace {

bool stopped(const std::atomic<bool>* stop) {
  return stop != nullptr && stop->load(std::memory_order_relaxed);
}

// Walks folder (below data, at prefix) and removes the regular files old names (a link or folder in
// one's place is not iofab's), then each folder old names once it is empty, deepest first. The walk
// goes over what the folder holds, never over what a manifest claims: its work is bounded by the folder.
Status remove_named_files(Store& store, const std::string& folder, const std::string& prefix,
                          const DatasetNames& old, const std::atomic<bool>* stop) {
  std::vector<std::string> names;
  if (Status s = store.list(folder, &names); !s.ok()) return s;
  for (const auto& n : names) {
    if (stopped(stop)) return Status::Interrupted();
    const std::string path = join_store_path(folder, n);
    const std::string rel = prefix + n;
    EntryInfo info;
    if (!store.stat(path, &info).ok()) continue;
    if (info.kind == EntryKind::kFile && old.names_file(rel)) {
      if (Status s = store.remove(path); !s.ok()) return s;
      continue;
    }
    if (info.kind != EntryKind::kFolder || !old.names_folder(rel)) continue;
    if (Status s = remove_named_files(store, path, rel + "/", old, stop); !s.ok()) return s;
    // A folder still holding something that is not iofab's stays.
    std::vector<std::string> inside;
    if (store.list(path, &inside).ok() && inside.empty()) {
      if (Status s = store.remove(path); !s.ok()) return s;
    }
  }
  return Status::Ok();
}

// Entries below folder, as paths from it, up to limit of them (a link is an entry, never followed).
void list_tree(Store& store, const std::string& folder, const std::string& prefix, size_t limit,
               std::vector<std::string>* out) {
  std::vector<std::string> names;
  if (!store.list(folder, &names).ok()) return;
  for (const auto& n : names) {
    if (out->size() >= limit) return;
    const std::string path = join_store_path(folder, n);
    EntryInfo info;
    if (!store.stat(path, &info).ok() || info.kind != EntryKind::kFolder) {
      out->push_back(prefix + n);
      continue;
    }
    const size_t before = out->size();
    list_tree(store, path, prefix + n + "/", limit, out);
    if (out->size() == before) out->push_back(prefix + n + "/");  // an empty folder
  }
}

}  // namespace

Status prepare_dataset_dir(Store& store, std::string_view root, const DatasetLayout& layout,
                           std::vector<std::string>* notes, const std::atomic<bool>* stop) {
  const std::string data = join_store_path(root, kDataFolder);
  EntryInfo data_info;
  if (Status s = store.stat(data, &data_info); !s.ok()) return s;
  if (data_info.kind == EntryKind::kFile || data_info.kind == EntryKind::kOther) {
    return Status::FromErrno(std::string("open ") + kDataFolder, ENOTDIR);
  }
  const bool had_data = data_info.kind == EntryKind::kFolder;
  // The old dataset's files, as its manifests (a complete one, or one left mid-rewrite) list them.
  for (const char* name : {kManifestName, kManifestTemp}) {
    if (!had_data) break;
    std::string text;
    // Absent, or not a regular file: it lists nothing. Bounded and non-blocking, like every read.
    if (!read_manifest(store, join_store_path(root, name), &text).ok()) continue;
    json m;
    const bool parsed = parse_json_input(text, {}, &m).ok();
    // A temp manifest cut short by a crash lists nothing: it is written before any file of its spec.
    if (!parsed && name == kManifestTemp) continue;
    DatasetSpec old;
    if (!parsed || !m.is_object() || !spec_from_json(m.value("spec", json()), &old)) {
      return Status::Invalid(std::string(name) + "'s spec is unreadable, so which files in " + kDataFolder +
                             "/ iofab made is unknown; nothing was removed: move " + kDataFolder +
                             "/ away or choose another dataset_dir");
    }
    // Names only: a layout would draw every size the spec claims (4 bytes a sample, before one is checked).
    if (Status r = remove_named_files(store, data, "", DatasetNames(old), stop); !r.ok()) return r;
  }
  Status s = write_manifest(store, root, layout, false, 0);
  if (s.ok() && !had_data) s = store.make_folder(data);
  if (!s.ok()) return s;
  // What is left is not iofab's: it stays, unless it sits where a new file goes.
  std::vector<std::string> left;
  list_tree(store, data, "", 4, &left);
  if (left.empty()) return Status::Ok();
  for (uint64_t f = 0; f < layout.num_files(); ++f) {
    if (stopped(stop)) return Status::Interrupted();
    const std::string path = layout.file_path(f);
    EntryInfo info;
    // An error here is a file where the path needs a folder (ENOTDIR): in the way too.
    if (!store.stat(join_store_path(data, path), &info).ok() || info.kind != EntryKind::kMissing) {
      return Status::Invalid(
          std::string(kDataFolder) + "/" + path +
          " is in the way: iofab did not make it (no manifest lists it) and the new dataset "
          "needs that path; move it away or choose another dataset_dir");
    }
  }
  std::string names;
  for (size_t i = 0; i < left.size() && i < 3; ++i) names += (i ? ", " : "") + left[i];
  notes->push_back(std::string(kDataFolder) + "/ holds files iofab did not make (" + names +
                   (left.size() > 3 ? ", ..." : "") + "); they were left as they are");
  return Status::Ok();
}

}  // namespace iofab
