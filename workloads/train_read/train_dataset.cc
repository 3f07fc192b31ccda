#include "workloads/train_read/train_dataset.h"

#include <cerrno>
#include <random>

#include "harness/comm/agree.h"
#include "harness/comm/rank_gather.h"
#include "harness/engines/io_driver.h"
#include "harness/fs/read_only_mount.h"
#include "harness/store/posix_store.h"
#include "workloads/dataset/dataset_manifest.h"

namespace iofab {
namespace {

using nlohmann::json;

// A dataset_dir is a store of its own, rooted there; create: make the folder (its parent must exist).
Status open_dataset_store(const std::string& path, bool create, std::unique_ptr<Store>* out) {
  Status s = open_posix_store(path, create, out);
  return s.ok() ? s : Status::FromCode(s.code(), "dataset_dir: " + s.message());
}

}  // namespace

TrainDataset::TrainDataset(const TrainReadParams& p, PhaseContext& ctx)
    : p_(p),
      ctx_(ctx),
      comm_(ctx.comm),
      rank_(ctx.comm.rank()),
      user_dir_(!p.dataset_dir.empty()),
      path_(user_dir_ ? p.dataset_dir : ctx.run_dir_path + "/" + ctx.phase_name),
      layout_(p.dataset),
      root_(user_dir_ ? "" : ctx.phase_name),
      data_(join_store_path(root_, kDataFolder)),
      store_(user_dir_ ? nullptr : ctx.store) {}

Status TrainDataset::open_folder() {
  Status mine;
  if (!user_dir_) {
    mine =
        store_ != nullptr ? store_->make_folder(root_) : Status::Internal("train_read: the run has no store");
  } else if (rank_ == 0) {
    mine = open_dataset_store(p_.dataset_dir, true, &dir_store_);
  }
  Status st = agree(comm_, mine);
  if (st.ok() && user_dir_) {
    st = agree(comm_, rank_ == 0 ? Status::Ok() : open_dataset_store(p_.dataset_dir, false, &dir_store_));
  }
  if (user_dir_) store_ = dir_store_.get();
  return st;
}

Status TrainDataset::decide() {
  Status st = agree(comm_, rank_ == 0 ? inspect_on_rank0() : Status::Ok());
  if (st.ok()) st = agree(comm_, broadcast_value(comm_, &decision_, 0, "dataset decision"));
  return st;
}

Status TrainDataset::inspect_on_rank0() {
  DatasetDirState state = DatasetDirState::kEmpty;
  std::string why;
  Status mine;
  if (user_dir_) {
    // Held for the whole phase, so no other run regenerates under us.
    mine = lock_dataset_dir(*store_, root_, path_, &lock_);
    if (mine.ok() && lock_ == nullptr) {
      prepare_notes_.push_back(
          "its filesystem does not support flock: another run using it at the same time would not be kept "
          "out");
    }
  }
  if (mine.ok()) mine = inspect_dataset_dir(*store_, root_, layout_, &state, &why, &ctx_.stop);
  if (mine.ok() && state == DatasetDirState::kForeign) {
    remove_dataset_lock(*store_, root_, &lock_);  // a folder refused is left as it was found
    return Status::Invalid("dataset_dir " + path_ + " " + why +
                           "; iofab generates only into an empty folder or one it made: choose another");
  }
  decision_.order_seed = p_.dataset.seed;
  if (p_.file_shuffle == Shuffle::kRandom || p_.sample_shuffle == Shuffle::kRandom) {
    std::random_device rd;
    decision_.order_seed = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }
  decision_.generate = state == DatasetDirState::kEmpty || state == DatasetDirState::kStale;
  decision_.why = state == DatasetDirState::kStale ? why : "";
  if (mine.ok() && decision_.generate && on_read_only_mount(p_.dataset_dir)) {
    // Read-only: a complete, matching dataset is read as it is; anything else cannot be made there.
    remove_dataset_lock(*store_, root_, &lock_);
    return Status::Invalid("dataset_dir " + path_ + " is on a read-only filesystem and holds no " +
                           "complete dataset matching the phase" + (why.empty() ? "" : " (" + why + ")") +
                           "; generate it on a writable mount first, or choose another dataset_dir");
  }
  uint64_t free_bytes = 0;
  if (mine.ok() && user_dir_ && decision_.generate && store_->free_space(&free_bytes).ok() &&
      free_bytes < layout_.total_bytes() + (64ULL << 20)) {
    return Status::Invalid("dataset_dir " + path_ + " has " + std::to_string(free_bytes) +
                           " bytes free; the dataset needs " + std::to_string(layout_.total_bytes()) +
                           " bytes plus 64 MiB; nothing was written");
  }
  return mine;
}

Status TrainDataset::generate() {
  Status st =
      agree(comm_, rank_ == 0 ? prepare_dataset_dir(*store_, root_, layout_, &prepare_notes_, &ctx_.stop)
                              : Status::Ok());
  if (st.ok()) st = comm_.barrier();
  if (!st.ok()) return st;
  const uint64_t g0 = now_ns();
  Status mine = store_->make_folder(data_);
  GenerateOptions go;
  go.rank = rank_;
  go.ranks = comm_.size();
  go.threads = p_.read_threads;
  go.stop = &ctx_.stop;
  go.progress = &ctx_.progress.done_bytes;
  uint64_t written = 0;
  if (mine.ok()) mine = generate_dataset_part(*store_, data_, layout_, go, &written);
  st = agree(comm_, mine);
  generate_seconds_ = static_cast<double>(now_ns() - g0) * 1e-9;
  if (!st.ok()) return st;
  return agree(comm_,
               rank_ == 0 ? complete_manifest(*store_, root_, layout_, generate_seconds_) : Status::Ok());
}

Status TrainDataset::check_reused() {
  EntryInfo info;
  Status mine = store_->stat(data_, &info);
  if (mine.ok() && info.kind != EntryKind::kFolder) {
    mine = Status::FromErrno("open " + path_ + "/data", info.kind == EntryKind::kMissing ? ENOENT : ENOTDIR);
  }
  return agree(comm_, mine);
}

Status TrainDataset::list(DatasetListing* out) {
  if (layout_.spec().layout != DatasetLayoutKind::kFiles) return Status::Ok();
  const uint64_t t0 = now_ns();
  uint64_t files = 0;
  const Status s = list_tree("", &files);
  out->ns = now_ns() - t0;
  out->listed = s.ok();
  out->files = files;
  return agree(comm_, s);
}

// Counts the files below data_/rel, entering the dataset's own folders (no stat: a name says which).
Status TrainDataset::list_tree(const std::string& rel, uint64_t* files) {
  std::vector<std::string> names;
  if (Status s = store_->list(rel.empty() ? data_ : join_store_path(data_, rel), &names); !s.ok()) return s;
  for (const std::string& n : names) {
    const std::string child = rel.empty() ? n : rel + "/" + n;
    if (!layout_.names().names_folder(child)) {
      ++*files;
    } else if (Status s = list_tree(child, files); !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

void TrainDataset::close() {
  lock_.reset();
  dir_store_.reset();
  if (user_dir_) store_ = nullptr;  // it was dir_store_
}

Status TrainDataset::remove_unless_kept() {
  if (!user_dir_ && !ctx_.keep && rank_ == 0 && store_ != nullptr) return store_->remove_tree(root_);
  return Status::Ok();
}

json TrainDataset::details(bool generated) const {
  return {{"path", path_},
          {"origin", generated ? "generated" : "reused"},
          {"regenerated_because", decision_.why},
          {"kept", user_dir_ || ctx_.keep},
          {"layout", layout_name(p_.dataset.layout)},
          {"files", layout_.num_files()},
          {"bytes", layout_.total_bytes()},
          {"sample_bytes", layout_.sample_bytes()},
          {"max_sample_size", layout_.max_sample_size()},
          {"spec", layout_.spec().to_json()},
          {"generate_seconds", generate_seconds_},
          {"scale", p_.scale},
          {"full_num_samples", p_.full_num_samples}};
}

void TrainDataset::warn(PhaseResult* result) const {
  for (const auto& n : prepare_notes_) result->warnings.push_back("dataset_dir " + path_ + ": " + n);
}

}  // namespace iofab
