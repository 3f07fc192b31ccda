#include "workloads/train_read/train_cache_params.h"

#include <string>

#include "harness/engines/engine_choice.h"
#include "harness/fs/path_kind.h"
#include "harness/phase/params.h"
#include "workloads/local_folder.h"
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
  if (!p->dataset_dir.empty() && same_folder(p->cache_dir, p->dataset_dir)) {
    r.fail("cache_dir", "is the dataset_dir; expected a folder of its own on node-local storage");
  }
  if (!engine_moves_data(p->engine)) {
    r.fail("cache_dir", "needs an engine that moves data: engine " + p->engine + " reads nothing to cache");
  }
  // Refused here, before anything is written, where this host can tell; the phase checks again on every
  // node.
  check_local_folder_param(r, "cache_dir", p->cache_dir, true);
}

}  // namespace iofab
