#include "mem_object_engine.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "mem_object_store.h"

namespace iofab::mem {
namespace {

class MemObjectEngine final : public Engine {
 public:
  std::string_view name() const override { return "mem"; }
  EngineCaps caps() const override {
    return EngineCaps{.sync = true, .needs_aligned_buffers = false, .moves_data = true};
  }

  Status add_file(int fd, int*) override {
    return Status::Invalid("mem: add_file: fd " + std::to_string(fd) +
                           " is a file; the mem engine reads and writes memory objects");
  }

  Status add_store_file(const StoreFile& file, int* index) override {
    auto obj = std::dynamic_pointer_cast<MemFileObject>(file.object());
    if (obj == nullptr) {
      return Status::Invalid("mem: " + file.path() +
                             " is not a memory object; the mem engine needs a mem:// target");
    }
    const auto free =
        std::find_if(files_.begin(), files_.end(), [](const File& f) { return f.obj == nullptr; });
    *index = static_cast<int>(free - files_.begin());
    if (free == files_.end()) files_.emplace_back();
    files_[static_cast<size_t>(*index)] = File{.obj = std::move(obj), .pending = {}, .committed = false};
    return Status::Ok();
  }

  // An upload not committed is dropped: nothing of it reaches the bucket.
  Status remove_file(int index) override {
    File* f = file(index);
    if (f == nullptr) return Status::Invalid("mem: remove_file: no file " + std::to_string(index));
    *f = File();
    return Status::Ok();
  }

  Status register_buffers(std::span<const iovec>) override { return Status::Ok(); }

  QueueResult queue(const IoRequest& req, IoCompletion* done) override {
    done->tag = req.tag;
    File* f = file(req.file);
    if (f == nullptr) {
      done->result = -EBADF;
    } else if (req.op == IoOp::kRead) {
      done->result = read(*f, req);
    } else {
      done->result = write(f, req);
    }
    return QueueResult::kCompleted;
  }

  Status commit() override { return Status::Ok(); }
  Status reap(unsigned, std::span<IoCompletion>, unsigned* n) override {
    *n = 0;
    return Status::Ok();
  }
  unsigned in_flight() const override { return 0; }

  // The commit: the object, whole, under its key.
  Status fsync(int index) override {
    File* f = file(index);
    if (f == nullptr) return Status::Invalid("mem: fsync: no file " + std::to_string(index));
    if (!f->obj->writable() || f->committed) return Status::Ok();
    f->obj->bucket().put(f->obj->key(), std::move(f->pending));
    f->pending = std::string();
    f->committed = true;
    return Status::Ok();
  }

 private:
  struct File {
    std::shared_ptr<MemFileObject> obj;
    std::string pending;  // written, not committed yet
    bool committed = false;
  };

  File* file(int index) {
    if (index < 0 || static_cast<size_t>(index) >= files_.size() || files_[index].obj == nullptr)
      return nullptr;
    return &files_[static_cast<size_t>(index)];
  }

  // A ranged GET of the object as last committed.
  static int64_t read(const File& f, const IoRequest& req) {
    const MemObject o = f.obj->bucket().get(f.obj->key());
    if (o.bytes == nullptr) return -ENOENT;
    if (req.offset >= o.bytes->size()) return 0;
    const size_t n = std::min<size_t>(req.len, o.bytes->size() - req.offset);
    std::memcpy(req.buf, o.bytes->data() + req.offset, n);
    return static_cast<int64_t>(n);
  }

  // In order only: the next byte of the object, or refused.
  static int64_t write(File* f, const IoRequest& req) {
    if (!f->obj->writable() || f->committed) return -EBADF;
    if (req.offset != f->pending.size()) return -EINVAL;
    f->pending.append(static_cast<const char*>(req.buf), req.len);
    return req.len;
  }

  std::vector<File> files_;
};

}  // namespace

Status make_mem_object_engine(const EngineOptions&, std::unique_ptr<Engine>* out) {
  *out = std::make_unique<MemObjectEngine>();
  return Status::Ok();
}

}  // namespace iofab::mem
