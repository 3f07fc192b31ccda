// The dataset's folder functions on a folder descriptor, for tests that open
// a real folder and look at it with POSIX calls beside the phase's own Store
// calls: each wraps the descriptor in a POSIX store rooted there and calls
// the Store form (workloads/dataset/dataset.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/store/posix_store.h"
#include "workloads/dataset/dataset.h"

namespace iofab {
inline Status inspect_dataset_dir(int root_fd, const DatasetLayout& layout, DatasetDirState* state,
                           std::string* why) {
  std::unique_ptr<Store> store;
  if (Status s = posix_store_at(root_fd, "dataset folder", &store); !s.ok()) return s;
  return inspect_dataset_dir(*store, "", layout, state, why);
}

inline Status prepare_dataset_dir(int root_fd, const DatasetLayout& layout, std::vector<std::string>* notes) {
  std::unique_ptr<Store> store;
  if (Status s = posix_store_at(root_fd, "dataset folder", &store); !s.ok()) return s;
  return prepare_dataset_dir(*store, "", layout, notes);
}

inline Status complete_manifest(int root_fd, const DatasetLayout& layout, double generate_seconds) {
  std::unique_ptr<Store> store;
  if (Status s = posix_store_at(root_fd, "dataset folder", &store); !s.ok()) return s;
  return complete_manifest(*store, "", layout, generate_seconds);
}

inline Status generate_dataset_part(int data_fd, const DatasetLayout& layout, const GenerateOptions& opts,
                             uint64_t* bytes) {
  *bytes = 0;
  std::unique_ptr<Store> store;
  if (Status s = posix_store_at(data_fd, "dataset data folder", &store); !s.ok()) return s;
  return generate_dataset_part(*store, "", layout, opts, bytes);
}

inline Status dataset_cache_pass(int data_fd, const DatasetLayout& layout, uint64_t part, uint64_t parts, bool drop,
                          CacheCounts* out) {
  std::unique_ptr<Store> store;
  if (Status s = posix_store_at(data_fd, "dataset data folder", &store); !s.ok()) return s;
  return dataset_cache_pass(*store, "", layout, part, parts, drop, out);
}

}  // namespace iofab
