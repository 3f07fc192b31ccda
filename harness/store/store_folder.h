// StoreFolder: one folder of a Store held open, for work on many names
// directly inside it (a metadata benchmark's creates and stats, a loader's
// opens of the samples of one folder). On the POSIX store each call is one
// system call on the held descriptor (openat, fstatat, unlinkat, renameat,
// mkdirat), as mdtest pays them; through Store::stat by path each call first
// opens the parent folder, which a metadata figure would measure instead of
// the storage. A store without descriptors serves the same calls by path
// (PathFolder), so every store runs the same code.
//
// Names are single components (no '/'); a StoreFolder must not outlive its
// Store. Thread-safety: as the Store: several threads may call at once on
// distinct names.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.h"
#include "harness/store/store.h"

namespace iofab {

class StoreFolder {
 public:
  StoreFolder() = default;
  StoreFolder(const StoreFolder&) = delete;
  StoreFolder& operator=(const StoreFolder&) = delete;
  virtual ~StoreFolder() = default;

  // The folder's path in its store ("" is the root).
  virtual const std::string& path() const = 0;
  // As Store::create / open / stat / remove / make_folder, for the name inside this folder.
  virtual Status create(std::string_view name, const OpenOptions& opts, StoreFile* out) = 0;
  virtual Status open(std::string_view name, const OpenOptions& opts, StoreFile* out) = 0;
  virtual Status stat(std::string_view name, EntryInfo* info) = 0;
  virtual Status remove(std::string_view name) = 0;
  virtual Status make_folder(std::string_view name) = 0;
  // Renames from to to, both inside this folder, replacing a file at to (Store::commit).
  virtual Status rename(std::string_view from, std::string_view to) = 0;
  // The names inside, sorted (Store::list).
  virtual Status list(std::vector<std::string>* names) = 0;
};

// A name handed to a StoreFolder: one component, as check_store_path allows it.
Status check_folder_name(std::string_view name);

// The StoreFolder of any store: each call goes to the store by path.
std::unique_ptr<StoreFolder> make_path_folder(Store& store, std::string_view path);

}  // namespace iofab
