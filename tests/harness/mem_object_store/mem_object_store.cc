#include "mem_object_store.h"

#include <algorithm>
#include <cerrno>
#include <vector>

namespace iofab::mem {
namespace {

class MemObjectStore final : public Store {
 public:
  MemObjectStore(std::shared_ptr<MemBucket> bucket, std::string root)
      : bucket_(std::move(bucket)),
        root_(std::move(root)),
        location_("mem://" + bucket_->name() + "/" + root_) {}

  std::string_view name() const override { return "mem"; }
  StoreCaps caps() const override {
    return StoreCaps{.folders = false,
                     .atomic_commit = false,
                     .durable_sync = true,  // an object exists whole once put, and stays
                     .direct_io = false,
                     .locks = false,
                     .engine = "mem",
                     .commit_per_file = true,
                     .free_space = false};
  }
  const std::string& location() const override { return location_; }

  Status make_folder(std::string_view path) override { return check_store_path(path); }

  Status create(std::string_view path, const OpenOptions& opts, StoreFile* out) override {
    if (Status s = check_store_path(path); !s.ok()) return s;
    if (opts.direct)
      return Status::Invalid("create " + std::string(path) +
                             ": an object has no O_DIRECT; set direct: false");
    if (bucket_->get(key_of(path)).bytes != nullptr) {
      return Status::IoError("open " + std::string(path) + ": File exists (key " + key_of(path) + ")");
    }
    *out = StoreFile(std::make_shared<MemFileObject>(bucket_, key_of(path), true), std::string(path));
    return Status::Ok();
  }

  // known_size: no lookup, as a data loader's GET goes straight out; a missing object is the read's error.
  Status open(std::string_view path, const OpenOptions& opts, StoreFile* out) override {
    if (opts.known_size == 0) {
      EntryInfo info;
      if (Status s = stat(path, &info); !s.ok()) return s;
      if (info.kind == EntryKind::kMissing) {
        return Status::IoError("open " + std::string(path) + ": No such file or directory (key " +
                               key_of(path) + ")");
      }
      if (info.kind != EntryKind::kFile) {
        return Status::Invalid("open " + std::string(path) + ": a folder (a key prefix), expected an object");
      }
    } else if (Status s = check_store_path(path); !s.ok()) {
      return s;
    }
    *out = StoreFile(std::make_shared<MemFileObject>(bucket_, key_of(path), false), std::string(path));
    return Status::Ok();
  }

  Status commit(std::string_view from, std::string_view to) override {
    return Status::Unavailable("commit " + std::string(from) + " -> " + std::string(to) +
                               ": an object store has no rename; the commit is the object written last");
  }

  Status sync(const StoreFile&) override { return Status::Ok(); }
  Status sync_folder(std::string_view) override { return Status::Ok(); }
  Status sync_all() override { return Status::Ok(); }

  Status list(std::string_view path, std::vector<std::string>* names) override {
    if (Status s = check_store_path(path, true); !s.ok()) return s;
    const std::string prefix = key_of(path) + "/";
    std::vector<std::string> out;
    for (const auto& [key, obj] : bucket_->list(prefix)) {
      const std::string rest = key.substr(prefix.size());
      const std::string first = rest.substr(0, rest.find('/'));
      if (!first.empty() && (out.empty() || out.back() != first)) out.push_back(first);
    }
    *names = std::move(out);  // sorted: the bucket's keys are
    return Status::Ok();
  }

  // The key itself (an object), or keys below it (a prefix, changed when its newest object was put).
  Status stat(std::string_view path, EntryInfo* info) override {
    if (Status s = check_store_path(path, true); !s.ok()) return s;
    const std::string key = key_of(path);
    *info = EntryInfo();
    if (const MemObject o = bucket_->get(key); o.bytes != nullptr) {
      *info = EntryInfo{
          .kind = EntryKind::kFile, .size = o.bytes->size(), .modified_unix_ns = o.modified_unix_ns};
      return Status::Ok();
    }
    for (const auto& [k, o] : bucket_->list(key + "/")) {
      info->kind = EntryKind::kFolder;
      info->modified_unix_ns = std::max(info->modified_unix_ns, o.modified_unix_ns);
    }
    return Status::Ok();
  }

  Status remove(std::string_view path) override {
    if (Status s = check_store_path(path); !s.ok()) return s;
    bucket_->remove(key_of(path));
    return Status::Ok();
  }

  Status remove_tree(std::string_view path) override {
    if (Status s = check_store_path(path, true); !s.ok()) return s;
    bucket_->remove_prefix(key_of(path) + "/");
    if (!path.empty()) bucket_->remove(key_of(path));
    return Status::Ok();
  }

  // One PUT: no check for what is there (iofab's names are new below its own run's prefix).
  Status put_file(std::string_view path, std::string_view bytes) override {
    if (Status s = check_store_path(path); !s.ok()) return s;
    bucket_->put(key_of(path), std::string(bytes));
    return Status::Ok();
  }

  Status stat_file(std::string_view path, EntryInfo* info) override {
    if (Status s = check_store_path(path); !s.ok()) return s;
    *info = EntryInfo();
    if (const MemObject o = bucket_->get(key_of(path)); o.bytes != nullptr) {
      *info = EntryInfo{
          .kind = EntryKind::kFile, .size = o.bytes->size(), .modified_unix_ns = o.modified_unix_ns};
    }
    return Status::Ok();
  }

  Status get_file(std::string_view path, uint64_t max_bytes, std::string* bytes) override {
    if (Status s = check_store_path(path); !s.ok()) return s;
    const MemObject o = bucket_->get(key_of(path));
    if (o.bytes == nullptr) return Status::FromErrno("GET " + key_of(path), ENOENT);
    if (o.bytes->size() > max_bytes) {
      return Status::Invalid(std::string(path) + ": larger than " + std::to_string(max_bytes) +
                             " bytes, the most iofab reads for this file");
    }
    *bytes = *o.bytes;
    return Status::Ok();
  }

  Status free_space(uint64_t*) override {
    return Status::Unavailable(location_ + ": an object store has no free-space figure");
  }

  Status lock(std::string_view path, std::unique_ptr<StoreLock>*) override {
    return Status::Unavailable("lock " + std::string(path) + ": an object store has no locks");
  }

 private:
  std::string key_of(std::string_view path) const {
    return path.empty() ? root_ : root_ + "/" + std::string(path);
  }

  std::shared_ptr<MemBucket> bucket_;
  const std::string root_;
  const std::string location_;
};

}  // namespace

Status open_mem_object_store(std::shared_ptr<MemBucket> bucket, const std::string& root,
                             std::unique_ptr<Store>* out) {
  if (root.empty()) return Status::Internal("mem store: an empty root would be the bucket's root");
  *out = std::make_unique<MemObjectStore>(std::move(bucket), root);
  return Status::Ok();
}

}  // namespace iofab::mem
