#include "workloads/local_folder.h"

#include "harness/fs/path_kind.h"
#include "harness/phase/params.h"
#include "harness/store/store.h"

namespace iofab {

std::string local_run_folder_name(const std::string& run_dir_path) {
  std::string p = run_dir_path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const auto slash = p.rfind('/');
  std::string name = slash == std::string::npos ? p : p.substr(slash + 1);
  // A name the store takes as one component; a run folder's always is.
  if (!check_store_path(name).ok()) name = "iofab-local";
  return name;
}

void check_local_folder_param(ParamReader& r, std::string_view key, const std::string& path,
                              bool must_exist) {
  const std::string k(key);
  switch (path_kind(path)) {
    case PathKind::kFolder:
      return;
    case PathKind::kMissing:
      if (must_exist) {
        r.fail(
            k,
            "does not exist; expected an existing folder on node-local storage, like \"/local/nvme\" (iofab "
            "writes only below it, in its own folder)");
      }
      return;
    case PathKind::kDevice:
      r.fail(k,
             "is a device; expected a folder on a mounted filesystem (iofab never writes to a raw device "
             "through " +
                 k + ")");
      return;
    case PathKind::kOther:
      r.fail(k, "exists and is not a folder; expected a folder like \"/local/nvme\"");
      return;
  }
}

}  // namespace iofab
