#include "workloads/local_folder.h"

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

}  // namespace iofab
