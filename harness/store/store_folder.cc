#include "harness/store/store_folder.h"

namespace iofab {
namespace {

class PathFolder final : public StoreFolder {
 public:
  PathFolder(Store& store, std::string path) : store_(store), path_(std::move(path)) {}

  const std::string& path() const override { return path_; }
  Status create(std::string_view name, const OpenOptions& opts, StoreFile* out) override {
    if (Status s = check_folder_name(name); !s.ok()) return s;
    return store_.create(join_store_path(path_, name), opts, out);
  }
  Status open(std::string_view name, const OpenOptions& opts, StoreFile* out) override {
    if (Status s = check_folder_name(name); !s.ok()) return s;
    return store_.open(join_store_path(path_, name), opts, out);
  }
  Status stat(std::string_view name, EntryInfo* info) override {
    if (Status s = check_folder_name(name); !s.ok()) return s;
    return store_.stat(join_store_path(path_, name), info);
  }
  Status remove(std::string_view name) override {
    if (Status s = check_folder_name(name); !s.ok()) return s;
    return store_.remove(join_store_path(path_, name));
  }
  Status make_folder(std::string_view name) override {
    if (Status s = check_folder_name(name); !s.ok()) return s;
    return store_.make_folder(join_store_path(path_, name));
  }
  Status rename(std::string_view from, std::string_view to) override {
    if (Status s = check_folder_name(from); !s.ok()) return s;
    if (Status s = check_folder_name(to); !s.ok()) return s;
    return store_.commit(join_store_path(path_, from), join_store_path(path_, to));
  }
  Status list(std::vector<std::string>* names) override { return store_.list(path_, names); }

 private:
  Store& store_;
  std::string path_;
};

}  // namespace

Status check_folder_name(std::string_view name) {
  if (name.find('/') != std::string_view::npos) {
    return Status::Invalid("\"" + std::string(name) + "\": expected one name inside the folder, not a path");
  }
  return check_store_path(name);
}

std::unique_ptr<StoreFolder> make_path_folder(Store& store, std::string_view path) {
  return std::make_unique<PathFolder>(store, std::string(path));
}

Status Store::open_folder(std::string_view path, std::unique_ptr<StoreFolder>* out) {
  if (Status s = check_store_path(path, true); !s.ok()) return s;
  EntryInfo info;
  if (!path.empty() && caps().folders) {
    if (Status s = stat(path, &info); !s.ok()) return s;
    if (info.kind != EntryKind::kFolder) {
      return Status::Invalid("open folder " + std::string(path) + ": not a folder");
    }
  }
  *out = make_path_folder(*this, path);
  return Status::Ok();
}

}  // namespace iofab
