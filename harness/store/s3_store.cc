#include "harness/store/s3_store.h"

#include <algorithm>
#include <mutex>

#include "harness/s3/s3_ops.h"

namespace iofab {
namespace {

class S3Store final : public Store {
 public:
  S3Store(std::shared_ptr<S3Target> target, std::string root, std::unique_ptr<S3Client> client)
      : target_(std::move(target)), root_(std::move(root)), client_(std::move(client)) {
    location_ = "s3://" + target_->config.bucket + "/" + root_;
  }

  std::string_view name() const override { return "s3"; }
  StoreCaps caps() const override {
    StoreCaps c;
    c.folders = false;
    c.atomic_commit = false;
    c.durable_sync = true;  // a completed upload is durable when S3 answers
    c.direct_io = false;
    c.locks = false;
    c.engine = "s3";
    c.commit_per_file = true;
    c.free_space = false;
    return c;
  }
  const std::string& location() const override { return location_; }

  Status make_folder(std::string_view path) override { return check_store_path(path); }

  Status create(std::string_view path, const OpenOptions& opts, StoreFile* out) override {
    if (Status s = check_store_path(path); !s.ok()) return s;
    if (opts.direct) return Status::Invalid("create " + std::string(path) + ": an S3 object has no O_DIRECT; set direct: false");
    EntryInfo info;
    if (Status s = stat(path, &info); !s.ok()) return s;
    if (info.kind != EntryKind::kMissing) {
      return Status::IoError("open " + std::string(path) + ": File exists (key " + key_of(path) + ")");
    }
    *out = StoreFile(std::make_shared<S3FileObject>(target_, key_of(path), 0, true), std::string(path));
    return Status::Ok();
  }

  Status open(std::string_view path, const OpenOptions& opts, StoreFile* out) override {
    if (opts.known_size > 0) {
      if (Status s = check_store_path(path); !s.ok()) return s;
      *out = StoreFile(std::make_shared<S3FileObject>(target_, key_of(path), opts.known_size, false),
                       std::string(path));
      return Status::Ok();
    }
    EntryInfo info;
    if (Status s = stat(path, &info); !s.ok()) return s;
    if (info.kind == EntryKind::kMissing) {
      return Status::IoError("open " + std::string(path) + ": No such file or directory (key " + key_of(path) + ")");
    }
    if (info.kind != EntryKind::kFile) {
      return Status::Invalid("open " + std::string(path) + ": a folder (a key prefix), expected an object");
    }
    *out = StoreFile(std::make_shared<S3FileObject>(target_, key_of(path), info.size, false), std::string(path));
    return Status::Ok();
  }

  Status commit(std::string_view from, std::string_view to) override {
    return Status::Unavailable("commit " + std::string(from) + " -> " + std::string(to) +
                               ": an object store has no rename; on S3 the commit is the object written last");
  }

  Status sync(const StoreFile&) override { return Status::Ok(); }
  Status sync_folder(std::string_view) override { return Status::Ok(); }
  Status sync_all() override { return Status::Ok(); }

  Status list(std::string_view path, std::vector<std::string>* names) override {
    if (Status s = check_store_path(path, true); !s.ok()) return s;
    const std::string prefix = key_of(path) + "/";
    std::vector<S3Object> objs;
    if (Status s = locked([&](S3Client& c) { return s3_list(c, prefix, &objs); }); !s.ok()) return s;
    std::vector<std::string> out;
    for (const S3Object& o : objs) {
      const std::string rest = o.key.substr(prefix.size());
      const std::string first = rest.substr(0, rest.find('/'));
      if (!first.empty() && (out.empty() || out.back() != first)) out.push_back(first);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    *names = std::move(out);
    return Status::Ok();
  }

  Status stat(std::string_view path, EntryInfo* info) override {
    if (Status s = check_store_path(path, true); !s.ok()) return s;
    const std::string key = key_of(path);
    std::vector<S3Object> objs;
    // One listing answers both: the key itself (a file) or keys below it (a folder).
    if (Status s = locked([&](S3Client& c) { return s3_list(c, key, &objs); }); !s.ok()) return s;
    *info = EntryInfo();
    for (const S3Object& o : objs) {
      if (o.key == key) {
        info->kind = EntryKind::kFile;
        info->size = o.size;
        info->modified_unix_ns = o.modified_unix_ns;
        return Status::Ok();
      }
      if (o.key.size() > key.size() && o.key[key.size()] == '/') {
        // A prefix changed when the newest object below it did.
        info->kind = EntryKind::kFolder;
        info->modified_unix_ns = std::max(info->modified_unix_ns, o.modified_unix_ns);
      }
    }
    return Status::Ok();
  }

  Status remove(std::string_view path) override {
    if (Status s = check_store_path(path); !s.ok()) return s;
    return locked([&](S3Client& c) { return s3_delete_keys(c, {key_of(path)}); });
  }

  Status remove_tree(std::string_view path) override {
    if (Status s = check_store_path(path, true); !s.ok()) return s;
    return locked([&](S3Client& c) {
      uint64_t n = 0;
      Status s = s3_delete_prefix(c, key_of(path) + "/", &n);
      if (s.ok() && !path.empty()) s = s3_delete_keys(c, {key_of(path)});
      return s;
    });
  }

  Status put_file(std::string_view path, std::string_view bytes) override {
    if (Status s = check_store_path(path); !s.ok()) return s;
    S3Result r;
    S3Request req = request(S3Method::kPut, path);
    req.body = bytes;
    return locked([&](S3Client& c) { return c.perform(std::move(req), &r); });
  }

  // One HEAD: 404 is a missing object, not an error.
  Status stat_file(std::string_view path, EntryInfo* info) override {
    if (Status s = check_store_path(path); !s.ok()) return s;
    S3Result r;
    Status s = locked([&](S3Client& c) {
      return c.perform(request(S3Method::kHead, path), &r);
    });
    *info = EntryInfo();
    if (r.http_status == 404) return Status::Ok();
    if (!s.ok()) return s;
    if (r.content_length < 0)
      return Status::IoError("HEAD " + key_of(path) + ": the answer has no Content-Length");
    info->kind = EntryKind::kFile;
    info->size = static_cast<uint64_t>(r.content_length);
    return Status::Ok();
  }

  Status get_file(std::string_view path, uint64_t max_bytes, std::string* bytes) override {
    if (Status s = check_store_path(path); !s.ok()) return s;
    S3Result r;
    Status s = locked(
        [&](S3Client& c) { return c.perform(request(S3Method::kGet, path), &r); });
    if (r.http_status == 404) return Status::FromErrno("GET " + key_of(path), ENOENT);
    if (!s.ok()) return s;
    if (r.text.size() > max_bytes) {
      return Status::Invalid(std::string(path) + ": larger than " + std::to_string(max_bytes) +
                             " bytes, the most iofab reads for this file");
    }
    *bytes = std::move(r.text);
    return Status::Ok();
  }

  Status free_space(uint64_t*) override {
    return Status::Unavailable(location_ + ": an object store has no free-space figure");
  }

  Status lock(std::string_view path, std::unique_ptr<StoreLock>*) override {
    return Status::Unavailable("lock " + std::string(path) + ": an object store has no locks");
  }

  bool take_request_stats(RequestStats* out) override {
    RequestStats s = target_->take_stats();
    {
      std::lock_guard<std::mutex> lock(mu_);
      s.merge(client_->stats());
      // A client's figures only grow: a fresh one starts the next phase's count at zero.
      std::unique_ptr<S3Client> fresh;
      if (make_s3_client(client_->config(), target_->creds, &fresh).ok()) client_ = std::move(fresh);
    }
    *out = std::move(s);
    return true;
  }

 private:
  S3Request request(S3Method method, std::string_view path) const {
    S3Request r;
    r.method = method;
    r.key = key_of(path);
    return r;
  }
  std::string key_of(std::string_view path) const { return path.empty() ? root_ : root_ + "/" + std::string(path); }

  template <typename F>
  Status locked(F&& f) {
    std::lock_guard<std::mutex> lock(mu_);
    return f(*client_);
  }

  std::shared_ptr<S3Target> target_;
  std::string root_;
  std::string location_;
  std::mutex mu_;
  std::unique_ptr<S3Client> client_;  // namespace requests, one at a time
};

}  // namespace

Status open_s3_store(std::shared_ptr<S3Target> target, const std::string& root, std::unique_ptr<Store>* out) {
  if (root.empty()) return Status::Internal("s3 store: an empty root would be the bucket's root");
  S3Config one = target->config;
  one.connections = 4;
  std::unique_ptr<S3Client> client;
  if (Status s = make_s3_client(one, target->creds, &client); !s.ok()) return s;
  *out = std::make_unique<S3Store>(std::move(target), root, std::move(client));
  return Status::Ok();
}

}  // namespace iofab
