#include "workloads/restore/checkpoint_source.h"

#include <unistd.h>

#include <cerrno>
#include <vector>

#include "harness/fs/target.h"
#include "harness/store/posix_store.h"
#include "harness/store/store_bytes.h"
#include "workloads/checkpoint/folder_layout.h"
#include "workloads/checkpoint/phase_folder.h"

namespace iofab {
namespace {

// A manifest lists one line per shard; 64 MiB holds hundreds of thousands.
constexpr uint64_t kMaxManifestBytes = 64ULL << 20;

// A POSIX store that cannot open its root says "open folder PATH: why"; the restore's own lead
// ("from: cannot open", "open checkpoint") replaces those words.
Status opening_failed(const Status& s, const std::string& lead) {
  constexpr std::string_view kStoreLead = "open folder ";
  std::string why = s.message();
  if (why.starts_with(kStoreLead)) why.erase(0, kStoreLead.size());
  return Status::FromCode(s.code(), lead + " " + why);
}

// The whole file at path, at most kMaxManifestBytes: a huge file named manifest.json must not
// exhaust a node (Store::open already refused a FIFO or a device without blocking).
Status read_bounded(Store& store, const std::string& path, std::string* text) {
  StoreFile file;
  Status s = store.open(path, {}, &file);
  if (!s.ok()) return s;
  const auto too_big = [&] {
    return Status::Invalid(path + ": larger than 64 MiB, the most iofab reads for this file");
  };
  text->clear();
  if (file.fd() < 0) {
    s = read_store_file(store, file, kMaxManifestBytes, text);
    return s.code() == Status::Code::kInvalidArgument ? too_big() : s;
  }
  char buf[65536];
  for (;;) {
    const ssize_t n = read(file.fd(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(path, errno);
    if (n == 0) return Status::Ok();
    text->append(buf, static_cast<size_t>(n));
    if (text->size() > kMaxManifestBytes) return too_big();
  }
}

// The newest committed step's folder name in folder of store (a checkpoint phase's folder), or the
// back-th before it: "step-N", or Megatron's "iter_NNNNNNN".
Status newest_step(Store& store, std::string_view folder, const std::string& where, uint64_t back,
                   std::string* step_dir) {
  StepListing steps;
  Status s = list_steps(store, folder, &steps);
  if (!s.ok()) return Status::IoError(where + ": " + s.message());
  if (steps.committed.empty()) {
    return Status::IoError(
        where + " holds no committed checkpoint (no step-N/ or iter_NNNNNNN/ folder" +
        (steps.tmp.empty() ? "" : "; only " + steps.tmp.back() + ", which never committed") + ")");
  }
  if (back >= steps.committed.size()) {
    return Status::IoError(where + " holds " + std::to_string(steps.committed.size()) +
                           " committed checkpoints; reading " + std::to_string(back + 1) +
                           " (steps) needs as many: keep them with the checkpoint phase's keep");
  }
  *step_dir = steps.committed_dirs[steps.committed.size() - 1 - back];
  return Status::Ok();
}

// The manifest of the newest step in folder of store; *dir becomes prefix/step-N (or prefix/iter_NNNNNNN).
Status read_newest_step(Store& store, std::string_view folder, const std::string& where,
                        const std::string& prefix, uint64_t back, std::string* dir, Manifest* m) {
  std::string step_dir;
  Status s = newest_step(store, folder, where, back, &step_dir);
  if (!s.ok()) return s;
  *dir = prefix + "/" + step_dir;
  return read_manifest(store, join_store_path(folder, step_dir), *dir, m);
}

// `from`: a step-N/ folder, or a checkpoint phase's folder (its newest step). Read only: another
// run's checkpoint is never written or removed.
Status find_from(const std::string& from, uint64_t back, std::string* dir, Manifest* m) {
  std::unique_ptr<Store> store;
  Status s = open_posix_store(from, /*create=*/false, &store);
  if (!s.ok()) return opening_failed(s, "from: cannot open");
  s = back == 0 ? read_manifest(*store, "", from, m)
                 : Status::Invalid("from: " + from + " is one step; steps > 1 needs a checkpoint phase's folder");
  *dir = from;
  if (!s.ok() && !holds_commit_file(*store, "")) {
    // A checkpoint phase's folder: take its newest step.
    s = read_newest_step(*store, "", "from: " + from, from, back, dir, m);
  }
  return s;
}

// When the newest step of checkpoint phase folder n committed, in ns: the
// manifest's commit time, else its modification time; false when it has no step.
bool commit_time(Store& store, const std::string& n, int64_t* t) {
  std::string step_dir;
  if (!newest_step(store, n, n, 0, &step_dir).ok()) return false;
  const std::string step_path = join_store_path(n, step_dir);
  EntryInfo info;
  if (!store.stat(join_store_path(step_path, step_commit_file(store, step_path)), &info).ok() ||
      info.kind == EntryKind::kMissing) {
    if (!store.stat(step_path, &info).ok() || info.kind == EntryKind::kMissing) return false;
  }
  *t = info.modified_unix_ns;
  // The commit time in the manifest is finer than a filesystem's mtime, when it can be read.
  Manifest cand;
  if (read_manifest(store, step_path, n, &cand).ok() && cand.committed_unix_ns > 0) {
    *t = static_cast<int64_t>(cand.committed_unix_ns);
  }
  return true;
}

// The nearest earlier checkpoint phase is the one that committed last (by the manifest's commit time,
// else its mtime). A broken manifest still counts, so that its error shows.
Status latest_checkpoint_phase(const PhaseContext& ctx, std::string* phase) {
  std::vector<std::string> names;
  if (Status s = ctx.store->list("", &names); !s.ok())
    return Status::IoError("open run folder: " + s.message());
  int64_t newest = -1;
  for (const auto& n : names) {
    EntryInfo info;
    if (n == ctx.phase_name || !ctx.store->stat(n, &info).ok() || info.kind != EntryKind::kFolder) continue;
    int64_t t = 0;
    if (commit_time(*ctx.store, n, &t) && t >= newest) {
      newest = t;
      *phase = n;
    }
  }
  if (phase->empty()) {
    return Status::IoError(
        "no checkpoint to restore: no earlier checkpoint phase of this run left a committed step-N/ "
        "(put a checkpoint phase before this one, name it with `checkpoint`, or give `from`)");
  }
  return Status::Ok();
}

// The newest step of checkpoint phase `phase` of this run.
Status find_in_run(const PhaseContext& ctx, const std::string& phase, uint64_t back, std::string* dir,
                   Manifest* m) {
  EntryInfo info;
  Status s = ctx.store->stat(phase, &info);
  if (s.ok() && info.kind != EntryKind::kFolder) {
    s = Status::FromErrno("open", info.kind == EntryKind::kMissing ? ENOENT : ENOTDIR);
  }
  if (!s.ok()) {
    return Status::IoError("checkpoint: no folder for phase \"" + phase + "\" in this run (" + s.message() +
                           "): is it a checkpoint phase that runs before " + ctx.phase_name + "?");
  }
  return read_newest_step(*ctx.store, phase, "checkpoint phase \"" + phase + "\"", phase, back, dir, m);
}

}  // namespace

Source find_checkpoint(const RestoreParams& p, const PhaseContext& ctx, uint64_t back) {
  Source src;
  Manifest m;
  Status s;
  if (!p.from.empty()) {
    src.external = true;
    s = find_from(p.from, back, &src.dir, &m);
  } else {
    std::string phase = p.checkpoint;
    if (phase.empty()) s = latest_checkpoint_phase(ctx, &phase);
    if (s.ok()) s = find_in_run(ctx, phase, back, &src.dir, &m);
  }
  if (!s.ok()) {
    src.error = s.message();
    return src;
  }
  src.manifest = manifest_to_json_text(m);
  return src;
}

nlohmann::json to_wire(const Source& s) {
  return {{"error", s.error}, {"external", s.external}, {"dir", s.dir}, {"manifest", s.manifest}};
}

Status from_wire(const nlohmann::json& j, Source* out) {
  WireReader r(j);
  r.field("error", &out->error).field("external", &out->external).field("dir", &out->dir);
  r.field("manifest", &out->manifest);
  return r.status();
}

Status read_manifest(Store& store, std::string_view folder, std::string_view where, Manifest* m) {
  std::string text;
  const std::string_view name = step_commit_file(store, folder);
  Status s = read_bounded(store, join_store_path(folder, name), &text);
  if (!s.ok()) {
    return Status::IoError(std::string(where) + ": no readable " + std::string(kCheckpointManifestName) + " or " +
                           std::string(kDcpMetadataName) + " (" + s.message() + "): not a committed checkpoint");
  }
  s = parse_manifest(text, m);
  if (!s.ok()) return Status::IoError(std::string(where) + "/" + s.message());
  return Status::Ok();
}

Status open_step_folder(Store& run_store, const LocatedCheckpoint& cp, StepFolder* out) {
  if (cp.external) {
    Status s = open_posix_store(cp.dir, /*create=*/false, &out->external);
    if (!s.ok()) return opening_failed(s, "open checkpoint");
    out->store = out->external.get();
    out->path.clear();
    return Status::Ok();
  }
  EntryInfo info;
  Status s = run_store.stat(cp.dir, &info);
  if (s.ok() && info.kind != EntryKind::kFolder) {
    s = Status::FromErrno("open checkpoint " + cp.dir, info.kind == EntryKind::kMissing ? ENOENT : ENOTDIR);
  }
  if (!s.ok()) return s;
  out->store = &run_store;
  out->path = cp.dir;
  return Status::Ok();
}

std::string block_device_of(const std::string& dir) {
  TargetInfo info;
  return describe_target(dir, &info).ok() ? info.block_device : "";
}

Status open_shard(const StepFolder& step, const std::string& name, bool direct, StoreFile* out) {
  Status s = step.store->open(join_store_path(step.path, name), OpenOptions{.direct = direct}, out);
  // The reason lists each bad shard beside its name already: "open NAME: why", without the folder.
  const std::string lead = "open " + step.path + "/";
  if (s.ok() || step.path.empty() || !s.message().starts_with(lead)) return s;
  return Status::FromCode(s.code(), "open " + s.message().substr(lead.size()));
}

bool shard_file_size(const StepFolder& step, const std::string& name, uint64_t* size) {
  EntryInfo info;
  if (!step.store->stat(join_store_path(step.path, name), &info).ok() || info.kind != EntryKind::kFile)
    return false;
  *size = info.size;
  return true;
}

}  // namespace iofab
