#include "workloads/checkpoint/phase_folder.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>

#include "harness/store/store_bytes.h"
#include "workloads/checkpoint/folder_layout.h"

namespace iofab {

bool holds_commit_file(Store& store, std::string_view step_path) {
  for (std::string_view name : {kCheckpointManifestName, kDcpMetadataName}) {
    EntryInfo info;
    // Whatever it is: a manifest that is not a file still marks a step, whose restore then names it.
    if (store.stat(join_store_path(step_path, name), &info).ok() && info.kind != EntryKind::kMissing) return true;
  }
  return false;
}

std::string_view step_commit_file(Store& store, std::string_view step_path) {
  EntryInfo info;
  if (store.stat(join_store_path(step_path, kDcpMetadataName), &info).ok() && info.kind != EntryKind::kMissing)
    return kDcpMetadataName;
  return kCheckpointManifestName;
}

Status list_steps(Store& store, std::string_view folder, StepListing* out) {
  out->committed.clear();
  out->committed_dirs.clear();
  out->tmp.clear();
  std::vector<std::pair<uint64_t, std::string>> committed;
  std::vector<std::string> names;
  if (Status s = store.list(folder, &names); !s.ok()) return s;
  for (const std::string& name : names) {
    // A link named like a step is not one: only a real folder counts.
    EntryInfo info;
    if (!store.stat(join_store_path(folder, name), &info).ok() || info.kind != EntryKind::kFolder) continue;
    const std::string_view n(name);
    if (auto step = parse_step_dir_name(n)) {
      // In place (dcp): the folder is a checkpoint once its .metadata is there, never before.
      if (holds_commit_file(store, join_store_path(folder, name))) {
        committed.emplace_back(*step, name);
      } else {
        out->tmp.push_back(name);
      }
    } else if (n.ends_with(".tmp") && parse_step_dir_name(n.substr(0, n.size() - 4))) {
      out->tmp.push_back(name);
    }
  }
  std::sort(committed.begin(), committed.end());
  for (auto& [step, name] : committed) {
    out->committed.push_back(step);
    out->committed_dirs.push_back(std::move(name));
  }
  std::sort(out->tmp.begin(), out->tmp.end());
  return Status::Ok();
}

Status remove_stale_steps(Store& store, std::string_view folder, uint64_t* removed, uint64_t* newest) {
  *removed = 0;
  *newest = 0;
  StepListing steps;
  Status st = list_steps(store, folder, &steps);
  if (!st.ok()) return st;
  for (const auto& t : steps.tmp) {
    Status rm = store.remove_tree(join_store_path(folder, t));
    if (!rm.ok()) st = rm;
    ++*removed;
  }
  if (!steps.committed.empty()) *newest = steps.committed.back();
  return st;
}

void remove_uncommitted_steps(Store& store, std::string_view folder) {
  StepListing steps;
  if (list_steps(store, folder, &steps).ok()) {
    // Best effort: restore reads committed steps only, so a step-N.tmp/ that stays is never read,
    // and the next run's checkpoint phase tries again.
    for (const auto& t : steps.tmp) store.remove_tree(join_store_path(folder, t)).ignore_error();
  }
}

Status create_shard_file(Store& store, std::string_view folder, std::string_view step_dir,
                         const std::string& name, bool direct, bool in_place, StoreFile* out) {
  // An object store has no rename: shards go straight to step-N/, which is a checkpoint once its manifest
  // is there (commit_step_folder).
  in_place = in_place || store.caps().commit_per_file;
  const std::string tmp =
      join_store_path(folder, in_place ? std::string(step_dir) : std::string(step_dir) + ".tmp");
  Status s = store.make_folder(tmp);
  if (!s.ok()) return s;
  // Megatron's files sit in a folder per tensor x pipeline rank; writers of one folder race to make it,
  // which make_folder allows.
  if (const size_t slash = name.find('/'); slash != std::string::npos) {
    s = store.make_folder(join_store_path(tmp, name.substr(0, slash)));
    if (!s.ok()) return s;
  }
  s = store.create(join_store_path(tmp, name), OpenOptions{.direct = direct}, out);
  if (!s.ok() && direct && s.message().find("Invalid argument") != std::string::npos) {
    return Status::IoError(s.message() + " (this filesystem does not support O_DIRECT; set direct: false)");
  }
  return s;
}

namespace {

// Creates name in folder (never over a file), writes text and, when durable, syncs it.
Status write_text(Store& store, std::string_view folder, std::string_view name, const std::string& text,
                  bool durable = true) {
  StoreFile file;
  Status s = store.create(join_store_path(folder, name), {}, &file);
  if (!s.ok()) return s;
  if (file.fd() < 0) return write_store_file(store, file, text);  // an object: written and committed whole
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(file.fd(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::FromErrno("write " + std::string(name), n < 0 ? errno : ENOSPC);
    done += static_cast<size_t>(n);
  }
  if (durable) s = store.sync(file);
  if (!s.ok()) return s;
  // A close that fails can lose what the sync reported done (NFS): it fails the commit.
  if (close(file.release()) != 0) return Status::FromErrno("close " + std::string(name), errno);
  return Status::Ok();
}

// Megatron-LM's tracker: rank 0 writes the newest iteration's number once the step is saved, and a
// restart reads it to find the checkpoint. Replaced whole (a temp file renamed over it) on a
// filesystem; on an object store a PUT replaces it.
Status write_megatron_tracker(Store& store, std::string_view folder, uint64_t step) {
  const std::string text = std::to_string(step);
  if (store.caps().commit_per_file) {
    store.remove(join_store_path(folder, kMegatronTrackerName)).ignore_error();  // a PUT never overwrites here
    return write_text(store, folder, kMegatronTrackerName, text);
  }
  const std::string temp = std::string(kMegatronTrackerName) + ".tmp";
  store.remove(join_store_path(folder, temp)).ignore_error();  // one a crash left: it was never the tracker
  Status s = write_text(store, folder, temp, text);
  if (s.ok()) s = store.commit(join_store_path(folder, temp), join_store_path(folder, kMegatronTrackerName));
  if (s.ok()) s = store.sync_folder(folder);
  return s;
}

// Megatron-LM's rank 0 after a save: open(tracker, 'w'), the iteration's number, close; no fsync. (The
// Store never opens over a file: removed and made again, the same namespace work as a truncation.)
Status rewrite_tracker_in_place(Store& store, std::string_view folder, uint64_t step) {
  store.remove(join_store_path(folder, kMegatronTrackerName)).ignore_error();  // none before the first save
  return write_text(store, folder, kMegatronTrackerName, std::to_string(step), /*durable=*/false);
}

// Every sub-folder of the names ("mp_rank_00" of "mp_rank_00/model_optim_rng.pt"), once.
std::set<std::string> subfolders_of(const std::vector<std::string>& names) {
  std::set<std::string> out;
  for (const std::string& n : names) {
    if (const size_t slash = n.find('/'); slash != std::string::npos) out.insert(n.substr(0, slash));
  }
  return out;
}

// Opens path and fsyncs it: what a sync after torch.save makes durable.
Status sync_existing(Store& store, const std::string& path) {
  StoreFile file;
  Status s = store.open(path, {}, &file);
  if (s.ok()) s = store.sync(file);
  if (file.fd() >= 0 && close(file.release()) != 0 && s.ok()) s = Status::FromErrno("close " + path, errno);
  return s;
}

}  // namespace

Status make_step_durable(Store& store, std::string_view folder, std::string_view step_dir,
                         const std::vector<std::string>& names, bool commit_files) {
  const std::string dir = join_store_path(folder, step_dir);
  Status s;
  for (const std::string& n : names) {
    if (s.ok()) s = sync_existing(store, join_store_path(dir, n));
  }
  if (!commit_files) return s;
  if (s.ok()) s = sync_existing(store, join_store_path(dir, kCheckpointManifestName));
  if (s.ok()) s = sync_existing(store, join_store_path(folder, kMegatronTrackerName));
  for (const std::string& sub : subfolders_of(names)) {
    if (s.ok()) s = store.sync_folder(join_store_path(dir, sub));
  }
  if (s.ok()) s = store.sync_folder(dir);
  if (s.ok()) s = store.sync_folder(folder);
  return s;
}

Status write_manifest(Store& store, std::string_view folder, const Manifest& m, std::string_view name) {
  std::string text = manifest_to_json_text(m);
  if (text.size() < m.pad_to) text.append(m.pad_to - text.size(), ' ');  // JSON ends in any whitespace
  return write_text(store, folder, name, text);
}

Status commit_step_folder(Store& store, std::string_view folder, const Manifest& m, CommitMode commit) {
  const std::string dst = join_store_path(folder, step_folder_name(m.step, commit));
  if (commit == CommitMode::kMegatron && !store.caps().commit_per_file) {
    // Megatron-LM: the files are in iter_N/ already, unsynced; the step is a checkpoint once the tracker
    // names it. iofab's manifest (for restore) goes in first, unsynced as the rest.
    Status s = write_text(store, dst, kCheckpointManifestName, manifest_to_json_text(m), /*durable=*/false);
    if (s.ok()) s = rewrite_tracker_in_place(store, folder, m.step);
    return s;
  }
  if (store.caps().commit_per_file) {
    // An object store: every shard's upload completed before this (each writer's fsync); the manifest
    // object, written last, is the commit. A step-N/ without it is no checkpoint (list_steps).
    Status s = write_manifest(store, dst, m, writes_in_place(m.layout) ? kDcpMetadataName : kCheckpointManifestName);
    if (s.ok() && m.layout == CheckpointLayoutKind::kMegatron) s = write_megatron_tracker(store, folder, m.step);
    return s;
  }
  if (writes_in_place(m.layout)) {
    // PyTorch DCP's finish(): every rank's files are durable, then the coordinator writes
    // .metadata.tmp, syncs it and renames it to .metadata: that rename is the commit.
    const std::string temp = std::string(kDcpMetadataName) + ".tmp";
    Status s = store.sync_folder(dst);
    if (s.ok()) s = write_manifest(store, dst, m, temp);
    if (s.ok()) s = store.commit(join_store_path(dst, temp), join_store_path(dst, kDcpMetadataName));
    if (s.ok()) s = store.sync_folder(dst);
    return s;
  }
  const std::string tmp = join_store_path(folder, step_tmp_name(m.step));
  Status s;
  // Megatron's per-rank folders: their entries are durable before the commit too.
  std::vector<std::string> names;
  for (const ShardEntry& e : m.shards) names.push_back(e.name);
  for (const std::string& sub : subfolders_of(names)) {
    if (s.ok()) s = store.sync_folder(join_store_path(tmp, sub));
  }
  if (s.ok()) s = write_manifest(store, tmp, m, kCheckpointManifestName);
  // The shards' and the manifest's names are durable before the commit publishes them.
  if (s.ok()) s = store.sync_folder(tmp);
  if (s.ok()) s = store.commit(tmp, dst);
  if (s.ok()) s = store.sync_folder(folder);
  if (s.ok() && m.layout == CheckpointLayoutKind::kMegatron) s = write_megatron_tracker(store, folder, m.step);
  return s;
}

Status rotate_steps(Store& store, std::string_view folder, unsigned keep, uint64_t* deleted) {
  StepListing steps;
  Status s = list_steps(store, folder, &steps);
  if (!s.ok()) return s;
  *deleted = 0;
  for (size_t i = 0; i + keep < steps.committed.size(); ++i) {
    s = store.remove_tree(join_store_path(folder, steps.committed_dirs[i]));
    if (!s.ok()) return s;
    ++*deleted;
  }
  return Status::Ok();
}

}  // namespace iofab
