#include "workloads/metadata/metadata_params.h"

#include <algorithm>

namespace iofab {
namespace {

// Folders in one tree at most: each is a mkdir and an rmdir, and a tree this wide is no longer a
// metadata rate of files but of folders.
constexpr uint64_t kMaxTreeFolders = 1'000'000;
// A file's bytes are made and checked in memory, a worker at a time.
constexpr uint64_t kMaxFileSize = 64ULL << 20;
// A week: IO500's stonewall is 300 s; anything past this is a typo in the unit.
constexpr double kMaxStonewallSeconds = 7 * 24 * 3600;

std::string step_names() {
  std::string s;
  for (const MdStepInfo& i : md_steps()) s += (s.empty() ? "" : ", ") + std::string(i.name);
  return s;
}

// `steps`: a list of step names, run in their fixed order; absent: every step.
std::vector<MdStep> read_steps(ParamReader& r) {
  std::vector<MdStep> all;
  for (const MdStepInfo& i : md_steps()) all.push_back(i.step);
  const nlohmann::json* v = r.raw("steps");
  if (v == nullptr) return all;
  const std::string expected = "expected a list of step names from " + step_names();
  if (!v->is_array() || v->empty()) {
    r.fail("steps", expected);
    return all;
  }
  std::vector<bool> seen(all.size(), false);
  for (size_t k = 0; k < v->size(); ++k) {
    const nlohmann::json& item = (*v)[k];
    const auto& steps = md_steps();
    const auto it = std::find_if(steps.begin(), steps.end(), [&](const MdStepInfo& i) {
      return item.is_string() && item.get<std::string>() == i.name;
    });
    if (it == steps.end()) {
      r.fail_at_path(r.path_of("steps") + "[" + std::to_string(k) + "]: " + expected + ", got " + item.dump());
      continue;
    }
    if (seen[static_cast<size_t>(it->step)]) r.fail("steps", "\"" + std::string(it->name) + "\" is listed twice");
    seen[static_cast<size_t>(it->step)] = true;
  }
  std::vector<MdStep> out;
  for (MdStep s : all) {
    if (seen[static_cast<size_t>(s)]) out.push_back(s);
  }
  return out;
}

bool has(const std::vector<MdStep>& steps, MdStep s) { return std::find(steps.begin(), steps.end(), s) != steps.end(); }

}  // namespace

MetadataParams read_metadata_params(ParamReader& r) {
  MetadataParams p;
  p.files_per_rank = static_cast<uint64_t>(r.integer("files_per_rank", 1000, 1, 1'000'000'000));
  p.workers = static_cast<unsigned>(r.integer("workers", 1, 1, 256));
  p.shared_folder = r.boolean("shared_folder", false);
  p.dirs_per_level = static_cast<unsigned>(r.integer("dirs_per_level", 1, 1, 100'000));
  p.depth = static_cast<unsigned>(r.integer("depth", 0, 0, 20));
  p.stride = static_cast<unsigned>(r.integer("stride", 0, 0, 1'000'000));
  p.fsync = r.boolean("fsync", false);
  p.file_size = r.size("file_size", 0, 0, kMaxFileSize);
  p.seed = static_cast<uint64_t>(r.integer("seed", 1, 0, INT64_MAX));
  p.stonewall = r.duration("stonewall", 0, 0, kMaxStonewallSeconds);
  p.steps = read_steps(r);
  if (p.depth > 0 && tree_folder_count(p.dirs_per_level, p.depth, kMaxTreeFolders) == 0) {
    r.fail("depth", "dirs_per_level^1 + ... + dirs_per_level^depth folders exceed " +
                        std::to_string(kMaxTreeFolders) + "; make the tree smaller");
  }
  if (p.workers > p.files_per_rank) r.fail("workers", "must be at most files_per_rank");
  // A read of files never written, a stat of files never made: each later step needs the files.
  const bool needs_files = std::any_of(p.steps.begin(), p.steps.end(), [](MdStep s) {
    return s != MdStep::kMkdir && s != MdStep::kCreate && s != MdStep::kRmdir;
  });
  if (needs_files && !has(p.steps, MdStep::kCreate)) {
    r.fail("steps", "stat, open, read, list, rename and remove need the files \"create\" makes: add \"create\"");
  }
  if (p.stonewall > 0 && !has(p.steps, MdStep::kCreate)) {
    r.fail("stonewall", "ends the create step, which steps leaves out: add \"create\" or drop stonewall");
  }
  if (has(p.steps, MdStep::kRmdir) && has(p.steps, MdStep::kCreate) && !has(p.steps, MdStep::kRemove)) {
    r.fail("steps", "rmdir needs the folders empty: add \"remove\" (or leave out \"rmdir\")");
  }
  return p;
}

Status check_metadata_on_object_store(const MetadataParams& p) {
  std::string runs, skipped;
  for (const MdStepInfo& i : md_steps()) {
    if (i.object_store_skip.empty()) runs += (runs.empty() ? "" : ", ") + std::string(i.name);
  }
  bool any = false;
  for (MdStep s : p.steps) {
    const MdStepInfo& i = md_step_info(s);
    any = any || i.object_store_skip.empty();
    if (!i.object_store_skip.empty())
      skipped += "; " + std::string(i.name) + ": " + std::string(i.object_store_skip);
  }
  if (!any) {
    return Status::Invalid("steps: none of them runs on an object store" + skipped +
                           "; expected at least one of " + runs + " on an s3:// target");
  }
  if (p.fsync) {
    return Status::Invalid(
        "fsync: true, but an object's PUT is durable once the store answers, with no fsync to "
        "ask for; set fsync: false on an s3:// target");
  }
  return Status::Ok();
}

}  // namespace iofab
