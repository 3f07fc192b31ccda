// The metadata phase's plan: which folders and files each rank makes, in
// which leaf folder each file lives, and whose files a rank stats, opens,
// reads and removes (mdtest's stride). Pure: no I/O, so the counts the phase
// must reach are tested apart from any storage.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace iofab {

// The sub-steps, in the order they run. Each is optional (MetadataParams::steps).
enum class MdStep : uint8_t { kMkdir, kCreate, kStat, kOpen, kRead, kList, kRename, kRemove, kRmdir };

struct MdStepInfo {
  MdStep step;
  std::string_view name;  // the suite's name and the metrics' prefix ("stat" -> "stat_ops_per_s")
  std::string_view what;  // one operation, for the metric descriptions
  bool strided;           // works on the files of rank (r + stride) % ranks, as mdtest's -N
  // Why an object store cannot run it (the report's note when a suite asks for it there); "": it runs
  // there, one request an operation (create a PUT, stat a HEAD, read a GET, list a paged LIST, remove a
  // DELETE).
  std::string_view object_store_skip;
};

// Every sub-step, in run order.
std::span<const MdStepInfo> md_steps();
const MdStepInfo& md_step_info(MdStep step);

struct MetadataParams {
  uint64_t files_per_rank = 1000;
  unsigned workers = 1;          // threads per rank, each on its own share of the rank's files
  bool shared_folder = false;    // every rank's files in one tree (IO500's mdtest-hard); else a tree per rank
  unsigned dirs_per_level = 1;   // folders below each folder of the tree
  unsigned depth = 0;            // levels of folders below the tree's root; 0: files in the root itself
  unsigned stride = 0;           // rank r works on rank (r + stride) % ranks's files in strided steps
  bool fsync = false;            // fsync each file after create (and its write)
  uint64_t file_size = 0;        // bytes written at create and read back at read (IO500 hard: 3901)
  // Seconds after which each rank stops creating (mdtest's -W, IO500's stonewall); every rank then makes as
  // many files as the rank that made most (the wear-out), and files_per_rank is only a ceiling. 0: none.
  double stonewall = 0;
  uint64_t seed = 1;
  std::vector<MdStep> steps;     // in run order, no repeats
};

class MetadataPlan {
 public:
  MetadataPlan(const MetadataParams& p, int ranks);

  int ranks() const { return ranks_; }
  // The folder that holds owner's tree, inside the phase's folder ("rank3", or "shared" for every rank).
  std::string tree_root(int owner) const;
  // Every folder of owner's tree below its root, parents before children, level by level:
  // levels()[0] are the root's children ("d0", "d1", ...), levels()[1] theirs ("d0/d0", ...).
  const std::vector<std::vector<std::string>>& levels() const { return levels_; }
  // The leaf folders (relative to the tree root; "" when depth is 0), where the files go.
  const std::vector<std::string>& leaves() const { return leaves_; }
  // File i of owner: its leaf's index and its name (renamed: after the rename step). The files fill the
  // leaves in contiguous blocks (as mdtest's items per folder), so a worker's share moves from one leaf to
  // the next and holds one folder open at a time.
  size_t leaf_of(uint64_t i) const;
  static std::string file_name(int owner, uint64_t i, bool renamed);
  // The files of a leaf that owner made: how many, of the first `made` files of a rank (fewer than
  // files_per_rank when a stonewall ended the create step; the leaves stay those of files_per_rank).
  uint64_t files_in_leaf(size_t leaf) const { return files_in_leaf(leaf, p_.files_per_rank); }
  uint64_t files_in_leaf(size_t leaf, uint64_t made) const;
  // Whose files rank works on in step: its own, or (rank + stride) % ranks in a strided step.
  int owner_for(int rank, MdStep step) const;
  // Of the stat, open and read operations the steps do, the share a rank does on files it made itself
  // (its client's cache could answer those), the most of any rank: 1 with stride 0, on one rank, or with
  // a stride that is a multiple of the rank count; 0 when every rank works on another's files or no such
  // step runs. Each step does one operation per file of its owner, and every owner made as many.
  double own_files_fraction() const;
  // Worker w's share [first, last) of a rank's files.
  std::pair<uint64_t, uint64_t> share(unsigned worker) const;
  // Folders a rank makes in the mkdir step (in a shared tree only rank 0 makes them).
  uint64_t folders_made_by(int rank) const;
  // Entries a rank counts in the list step: every file in the leaves it lists (its own tree, or with a
  // shared folder the whole tree, every rank's files).
  uint64_t entries_listed() const { return entries_listed(p_.files_per_rank); }
  uint64_t entries_listed(uint64_t made) const;
  // The longest path the phase makes below its own folder: a tree root, the longest leaf, a renamed file.
  size_t longest_path_bytes() const;

 private:
  MetadataParams p_;
  int ranks_;
  std::vector<std::vector<std::string>> levels_;
  std::vector<std::string> leaves_;
};

// Folders in a tree of dirs_per_level^1 + ... + dirs_per_level^depth, or 0 past limit.
uint64_t tree_folder_count(unsigned dirs_per_level, unsigned depth, uint64_t limit);

}  // namespace iofab
