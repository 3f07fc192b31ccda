// Store: the namespace and durability of a place phases write to, as
// LevelDB's Env is for LevelDB. Phases make folders, create, open, commit,
// sync, list and remove through a Store; the bytes themselves move through an
// Engine, on the handles a Store gives (StoreFile, harness/engines/store_file.h:
// a descriptor, or an object store's object).
//
// A Store is rooted: every path is relative to its root, '/'-separated, and
// can never leave it (no "..", no absolute path, no symlink followed at any
// component). The POSIX store roots at a folder (the run folder, a
// dataset_dir); the memory store is a fake for tests. An object store (S3)
// is one more implementation: folders become prefixes, commit a copy or a
// conditional put, caps() says which guarantees hold.
//
// Thread-safety: every method may be called from several threads at once on
// distinct paths; a StoreFile is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.h"
#include "harness/stats/request_stats.h"
#include "harness/engines/store_file.h"

namespace iofab {

// What a store guarantees, declared so phases never test a store's type.
struct StoreCaps {
  bool folders = true;        // real folders; false: prefixes that exist once something is below them
  bool atomic_commit = true;  // commit() is atomic: a reader sees the old name or the new, never half
  bool durable_sync = true;   // sync() and sync_folder() reach stable storage
  bool direct_io = true;      // OpenOptions::direct bypasses the page cache
  bool locks = true;          // lock() keeps other processes out (a filesystem may still refuse: Unavailable)
  // The engine every file of this store needs ("s3" for an object store's objects); nullptr: any
  // descriptor engine (engine_for_store).
  const char* engine = nullptr;
  // A file written exists only once Engine::fsync has committed it (an object store's upload is
  // completed then): a phase calls it for every file it writes, whatever its own fsync setting.
  bool commit_per_file = false;
  // free_space() has a figure (an object store has none: Unavailable).
  bool free_space = true;
};

struct OpenOptions {
  bool direct = false;  // O_DIRECT where the store has it (caps().direct_io)
  // open(): the file's size, when the caller knows it already (a dataset's layout says it). An object
  // store then sends no lookup before the first read, as a data loader's GET of a sample goes
  // straight out; a missing object shows as that read's error (HTTP 404). 0: look it up. A store with
  // descriptors ignores it.
  uint64_t known_size = 0;
};

enum class EntryKind { kMissing, kFile, kFolder, kOther };

struct EntryInfo {
  EntryKind kind = EntryKind::kMissing;
  uint64_t size = 0;  // files only
  // When it last changed (a file's data, a folder's names), ns since the Unix epoch; 0 when missing.
  // What tells two commits apart where no manifest says when each happened.
  int64_t modified_unix_ns = 0;
};

// A lock taken with Store::lock, released when the handle goes. It must not outlive its store.
class StoreLock {
 public:
  StoreLock() = default;
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;
  virtual ~StoreLock() = default;

  // Taking it made the lock's file: a caller that backs out removes it (Store::remove, after the
  // handle goes) to leave the folder as it found it.
  virtual bool created() const = 0;
};

class StoreFolder;

class Store {
 public:
  Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  virtual ~Store() = default;

  virtual std::string_view name() const = 0;  // "posix", "memory"
  virtual StoreCaps caps() const = 0;
  // Where the root is, for messages ("/mnt/fs/iofab-<run id>").
  virtual const std::string& location() const = 0;

  // Makes the folder path; one that exists already is fine. Its parent must exist.
  virtual Status make_folder(std::string_view path) = 0;
  // Creates path for writing (and reading back). Never replaces: an existing path is an error.
  virtual Status create(std::string_view path, const OpenOptions& opts, StoreFile* out) = 0;
  // Opens the regular file path for reading. Anything else (a folder, a FIFO) is refused, naming it.
  virtual Status open(std::string_view path, const OpenOptions& opts, StoreFile* out) = 0;
  // Moves from to to in one step, replacing a file (or an empty folder) at to: the commit of a
  // checkpoint step, a manifest written last.
  virtual Status commit(std::string_view from, std::string_view to) = 0;
  // Makes the file's data durable.
  virtual Status sync(const StoreFile& file) = 0;
  // Makes creations, removals and commits in the folder durable ("" is the root).
  virtual Status sync_folder(std::string_view path) = 0;
  // The names directly below the folder path ("" is the root), sorted.
  virtual Status list(std::string_view path, std::vector<std::string>* names) = 0;
  // What is at path; kMissing is not an error.
  virtual Status stat(std::string_view path, EntryInfo* info) = 0;
  // Removes the file or empty folder at path; missing is not an error.
  virtual Status remove(std::string_view path) = 0;
  // Removes path and everything below it; missing is not an error.
  virtual Status remove_tree(std::string_view path) = 0;
  // Bytes a new write may still use.
  virtual Status free_space(uint64_t* bytes) = 0;

  // Takes an exclusive lock named by the file path (created when missing, never through a symlink;
  // its parent must exist), without waiting. Held by another holder, in this process or another:
  // InvalidArgument naming the path. A store or filesystem that cannot lock (caps().locks false,
  // Lustre mounted noflock): Unavailable, and no lock file made by this call is left behind.
  virtual Status lock(std::string_view path, std::unique_ptr<StoreLock>* out) = 0;
  // Makes every write to the store's filesystem durable at once (POSIX: syncfs): after many small
  // files, one flush where a sync() of each would cost a device flush apiece.
  virtual Status sync_all() = 0;

  // The folder path held open for work on the names inside it (harness/store/store_folder.h): one system
  // call a create, stat or remove on a store with descriptors. The folder must exist. The default serves
  // each call by path.
  virtual Status open_folder(std::string_view path, std::unique_ptr<StoreFolder>* out);

  // Small whole files, one call each, as a metadata benchmark times them (phase metadata on an object store:
  // one request each). put_file creates path holding exactly bytes; a store with descriptors never replaces
  // what is there (File exists), while an object store sends one PUT, which has no such check (iofab's names
  // are new below its own run's prefix). The default: create, write through the store's engine, commit.
  virtual Status put_file(std::string_view path, std::string_view bytes);
  // What is at path, asked of a file: an object store sends one HEAD, where stat() lists (a prefix then shows
  // as kMissing). The default: stat().
  virtual Status stat_file(std::string_view path, EntryInfo* info) { return stat(path, info); }
  // The whole file at path (one GET on an object store); more than max_bytes: InvalidArgument naming the
  // limit. The default: open, read through the store's engine.
  virtual Status get_file(std::string_view path, uint64_t max_bytes, std::string* bytes);

  // An object store's request figures (counts, time to first byte, latency, retries, errors by status)
  // since the last call, for the phase that just ran; false for a store that sends no requests.
  virtual bool take_request_stats(RequestStats* out) {
    (void)out;
    return false;
  }
};

// The engine a phase asking for `asked` ("auto", "psync", ...) uses on store: the store's own engine
// when it names one and asked is "auto" or that engine, else asked ("auto" resolved). A descriptor engine
// asked for on an object store is refused: InvalidArgument naming both.
Status engine_for_store(const Store& store, std::string_view asked, std::string* out);

// Checks a path handed to a Store: relative, '/'-separated names, none empty,
// "." or "..", each at most 255 bytes. "" is the root (allowed_root).
Status check_store_path(std::string_view path, bool allowed_root = false);
// "a/b" + "c" -> "a/b/c"; either side may be "".
std::string join_store_path(std::string_view folder, std::string_view name);

}  // namespace iofab
