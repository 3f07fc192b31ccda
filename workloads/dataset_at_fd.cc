// The dataset's folder functions on a folder descriptor: each wraps the
// descriptor in a POSIX store rooted there and calls the Store form.
#include <fcntl.h>

#include <cerrno>

#include "harness/store/posix_store.h"
#include "workloads/dataset.h"

namespace iofab {
Status inspect_dataset_dir(int root_fd, const DatasetLayout& layout, DatasetDirState* state,
                           std::string* why) {
  std::unique_ptr<Store> store;
  if (Status s = posix_store_at(root_fd, "dataset folder", &store); !s.ok()) return s;
  return inspect_dataset_dir(*store, "", layout, state, why);
}

Status lock_dataset_dir(int root_fd, const std::string& path, int* lock_fd, bool* created) {
  *created = false;
  std::unique_ptr<Store> store;
  if (Status s = posix_store_at(root_fd, path, &store); !s.ok()) return s;
  std::unique_ptr<StoreLock> lock;
  if (Status s = lock_dataset_dir(*store, "", path, &lock); !s.ok() || lock == nullptr) return s;
  // The flock belongs to the open file description: this duplicate holds it once the handle goes.
  const int fd = fcntl(lock->fd(), F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return Status::FromErrno("lock " + path + "/" + kDatasetLockName, errno);
  *created = lock->created();
  *lock_fd = fd;
  return Status::Ok();
}

Status prepare_dataset_dir(int root_fd, const DatasetLayout& layout, std::vector<std::string>* notes) {
  std::unique_ptr<Store> store;
  if (Status s = posix_store_at(root_fd, "dataset folder", &store); !s.ok()) return s;
  return prepare_dataset_dir(*store, "", layout, notes);
}

Status complete_manifest(int root_fd, const DatasetLayout& layout, double generate_seconds) {
  std::unique_ptr<Store> store;
  if (Status s = posix_store_at(root_fd, "dataset folder", &store); !s.ok()) return s;
  return complete_manifest(*store, "", layout, generate_seconds);
}

Status generate_dataset_part(int data_fd, const DatasetLayout& layout, const GenerateOptions& opts,
                             uint64_t* bytes) {
  *bytes = 0;
  std::unique_ptr<Store> store;
  if (Status s = posix_store_at(data_fd, "dataset data folder", &store); !s.ok()) return s;
  return generate_dataset_part(*store, "", layout, opts, bytes);
}

Status dataset_cache_pass(int data_fd, const DatasetLayout& layout, uint64_t part, uint64_t parts, bool drop,
                          CacheCounts* out) {
  std::unique_ptr<Store> store;
  if (Status s = posix_store_at(data_fd, "dataset data folder", &store); !s.ok()) return s;
  return dataset_cache_pass(*store, "", layout, part, parts, drop, out);
}

}  // namespace iofab
