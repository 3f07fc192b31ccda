#include "workloads/metadata/metadata_plan.h"

#include <algorithm>

namespace iofab {
namespace {

constexpr std::string_view kNoFolders =
    "an object store has no folders: a prefix exists once an object is below it, so there is nothing to make "
    "or remove";

constexpr MdStepInfo kSteps[] = {
    {.step = MdStep::kMkdir,
     .name = "mkdir",
     .what = "folder made",
     .strided = false,
     .object_store_skip = kNoFolders},
    {.step = MdStep::kCreate,
     .name = "create",
     .what = "file created (open O_CREAT|O_EXCL, write, close)",
     .strided = false,
     .object_store_skip = ""},
    {.step = MdStep::kStat, .name = "stat", .what = "file stat", .strided = true, .object_store_skip = ""},
    {.step = MdStep::kOpen,
     .name = "open",
     .what = "file opened and closed, nothing read",
     .strided = true,
     .object_store_skip = "an object store has no open apart from a read: its GET is the read step"},
    {.step = MdStep::kRead,
     .name = "read",
     .what = "file opened, read whole, closed",
     .strided = true,
     .object_store_skip = ""},
    {.step = MdStep::kList,
     .name = "list",
     .what = "entry listed (readdir of every leaf folder)",
     .strided = true,
     .object_store_skip = ""},
    {.step = MdStep::kRename,
     .name = "rename",
     .what = "file renamed inside its folder",
     .strided = false,
     .object_store_skip = "an object store has no rename: S3's nearest is a copy and a delete"},
    {.step = MdStep::kRemove,
     .name = "remove",
     .what = "file removed",
     .strided = true,
     .object_store_skip = ""},
    {.step = MdStep::kRmdir,
     .name = "rmdir",
     .what = "folder removed",
     .strided = false,
     .object_store_skip = kNoFolders},
};

}  // namespace

std::span<const MdStepInfo> md_steps() { return kSteps; }

const MdStepInfo& md_step_info(MdStep step) { return kSteps[static_cast<size_t>(step)]; }

uint64_t tree_folder_count(unsigned dirs_per_level, unsigned depth, uint64_t limit) {
  uint64_t level = 1, total = 0;
  for (unsigned d = 0; d < depth; ++d) {
    level *= dirs_per_level;
    total += level;
    if (level > limit || total > limit) return 0;
  }
  return total;
}

MetadataPlan::MetadataPlan(const MetadataParams& p, int ranks) : p_(p), ranks_(ranks) {
  std::vector<std::string> parents = {""};
  for (unsigned d = 0; d < p_.depth; ++d) {
    std::vector<std::string> level;
    level.reserve(parents.size() * p_.dirs_per_level);
    for (const std::string& parent : parents) {
      for (unsigned i = 0; i < p_.dirs_per_level; ++i) {
        const std::string name = "d" + std::to_string(i);
        level.push_back(parent.empty() ? name : parent + "/" + name);
      }
    }
    levels_.push_back(level);
    parents = std::move(level);
  }
  leaves_ = std::move(parents);
}

std::string MetadataPlan::tree_root(int owner) const {
  return p_.shared_folder ? std::string("shared") : "rank" + std::to_string(owner);
}

std::string MetadataPlan::file_name(int owner, uint64_t i, bool renamed) {
  std::string n = "f." + std::to_string(owner) + "." + std::to_string(i);
  return renamed ? n + ".mv" : n;
}

size_t MetadataPlan::leaf_of(uint64_t i) const {
  return static_cast<size_t>(i * leaves_.size() / p_.files_per_rank);
}

uint64_t MetadataPlan::files_in_leaf(size_t leaf, uint64_t made) const {
  // The first file of leaf k is ceil(k * n / leaves): the smallest i with i * leaves / n >= k.
  const uint64_t n = p_.files_per_rank, leaves = leaves_.size();
  auto first = [&](uint64_t k) { return std::min<uint64_t>((k * n + leaves - 1) / leaves, made); };
  return first(leaf + 1) - first(leaf);
}

int MetadataPlan::owner_for(int rank, MdStep step) const {
  if (!md_step_info(step).strided) return rank;
  return static_cast<int>((static_cast<uint64_t>(rank) + p_.stride) % static_cast<uint64_t>(ranks_));
}

double MetadataPlan::own_files_fraction() const {
  double most = 0;
  for (int rank = 0; rank < ranks_; ++rank) {
    unsigned cached = 0, own = 0;
    for (MdStep s : p_.steps) {
      if (s != MdStep::kStat && s != MdStep::kOpen && s != MdStep::kRead) continue;
      ++cached;
      own += owner_for(rank, s) == rank;
    }
    if (cached > 0) most = std::max(most, static_cast<double>(own) / cached);
  }
  return most;
}

std::pair<uint64_t, uint64_t> MetadataPlan::share(unsigned worker) const {
  const uint64_t n = p_.files_per_rank, w = p_.workers;
  return {n * worker / w, n * (worker + 1) / w};
}

uint64_t MetadataPlan::folders_made_by(int rank) const {
  uint64_t folders = 1;  // the tree's root
  for (const auto& level : levels_) folders += level.size();
  return p_.shared_folder && rank != 0 ? 0 : folders;
}

uint64_t MetadataPlan::entries_listed(uint64_t made) const {
  return p_.shared_folder ? made * static_cast<uint64_t>(ranks_) : made;
}

size_t MetadataPlan::longest_path_bytes() const {
  const int last = ranks_ - 1;
  size_t root = std::max(tree_root(0).size(), tree_root(last).size());
  size_t leaf = 0;
  for (const std::string& l : leaves_) leaf = std::max(leaf, l.size());
  const size_t file = file_name(last, p_.files_per_rank - 1, true).size();
  return root + 1 + (leaf == 0 ? 0 : leaf + 1) + file;
}

}  // namespace iofab
