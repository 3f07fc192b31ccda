#include "workloads/train_read/train_cache_params.h"

#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "harness/phase/params.h"
#include "workloads/train_read/train_read_phase.h"

namespace iofab {

void read_cache_params(ParamReader& r, TrainReadParams* p) {
  const bool has_size = r.raw("cache_size") != nullptr;
  const bool has_source_epoch = r.raw("cache_source_epoch") != nullptr;
  p->cache_dir = r.string("cache_dir", "");
  p->cache_size = r.size("cache_size", 0, 0);
  p->cache_source_epoch = r.boolean("cache_source_epoch", true);
  if (p->cache_dir.empty()) {
    if (has_size) r.fail("cache_size", "applies only with cache_dir");
    if (has_source_epoch) r.fail("cache_source_epoch", "applies only with cache_dir");
    p->cache_source_epoch = false;
    return;
  }
  if (p->cache_dir.front() != '/') {
    r.fail("cache_dir", "must be an absolute folder on node-local storage, like \"/local/nvme\"");
    return;
  }
  std::error_code ec;
  if (!p->dataset_dir.empty() && (std::filesystem::path(p->cache_dir).lexically_normal() ==
                                      std::filesystem::path(p->dataset_dir).lexically_normal() ||
                                  std::filesystem::equivalent(p->cache_dir, p->dataset_dir, ec))) {
    r.fail("cache_dir", "is the dataset_dir; expected a folder of its own on node-local storage");
  }
  if (p->engine == "null") {
    r.fail("cache_dir", "needs an engine that moves data: engine null reads nothing to cache");
  }
  // Refused here, before anything is written, where this host can tell; the phase checks again on every
  // node.
  struct stat st {};
  if (stat(p->cache_dir.c_str(), &st) != 0) {
    r.fail("cache_dir",
           "does not exist; expected an existing folder on node-local storage, like \"/local/nvme\" (iofab "
           "writes only below it, in its own folder)");
  } else if (!S_ISDIR(st.st_mode)) {
    r.fail("cache_dir",
           S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode)
               ? "is a device; expected a folder on a mounted filesystem (iofab never writes to a raw device "
                 "through cache_dir)"
               : "exists and is not a folder; expected a folder like \"/local/nvme\"");
  }
}

}  // namespace iofab
