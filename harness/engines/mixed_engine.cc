#include "harness/engines/mixed_engine.h"

#include <cerrno>
#include <string>
#include <vector>

namespace iofab {
namespace {

class MixedEngine final : public Engine {
 public:
  MixedEngine(std::unique_ptr<Engine> objects, std::unique_ptr<Engine> descriptors)
      : objects_(std::move(objects)), descriptors_(std::move(descriptors)), name_(objects_->name()) {
    name_ += "+";
    name_ += descriptors_->name();
  }

  std::string_view name() const override { return name_; }
  EngineCaps caps() const override {
    const EngineCaps o = objects_->caps();
    const EngineCaps d = descriptors_->caps();
    return EngineCaps{.sync = false,
                      .needs_aligned_buffers = o.needs_aligned_buffers || d.needs_aligned_buffers,
                      .moves_data = o.moves_data && d.moves_data};
  }

  Status add_file(int fd, int* index) override {
    int inner = -1;
    if (Status s = descriptors_->add_file(fd, &inner); !s.ok()) return s;
    *index = slot_for({descriptors_.get(), inner});
    return Status::Ok();
  }

  Status add_store_file(const StoreFile& file, int* index) override {
    Engine* e = file.object() != nullptr ? objects_.get() : descriptors_.get();
    int inner = -1;
    if (Status s = e->add_store_file(file, &inner); !s.ok()) return s;
    *index = slot_for({e, inner});
    return Status::Ok();
  }

  Status remove_file(int index) override {
    const Route* r = route(index);
    if (r == nullptr) return Status::Invalid(name_ + ": remove_file: no file " + std::to_string(index));
    Status s = r->engine->remove_file(r->inner);
    files_[static_cast<size_t>(index)] = Route{};
    return s;
  }

  Status register_buffers(std::span<const iovec> bufs) override {
    if (Status s = objects_->register_buffers(bufs); !s.ok()) return s;
    return descriptors_->register_buffers(bufs);
  }

  QueueResult queue(const IoRequest& req, IoCompletion* done) override {
    const Route* r = route(req.file);
    if (r == nullptr) {
      done->tag = req.tag;
      done->result = -EBADF;
      return QueueResult::kCompleted;
    }
    IoRequest inner = req;
    inner.file = r->inner;
    // Staged I/O goes out at the next commit(), which reaches both engines.
    return r->engine->queue(inner, done);
  }

  Status commit() override {
    if (Status s = objects_->commit(); !s.ok()) return s;
    return descriptors_->commit();
  }

  Status reap(unsigned min_complete, std::span<IoCompletion> out, unsigned* n) override {
    // The descriptor engine is synchronous: nothing of it is ever left to reap.
    return objects_->reap(min_complete, out, n);
  }

  unsigned in_flight() const override { return objects_->in_flight(); }

  Status fsync(int file) override {
    const Route* r = route(file);
    if (r == nullptr) return Status::Invalid(name_ + ": fsync: no file " + std::to_string(file));
    return r->engine->fsync(r->inner);
  }

 private:
  struct Route {
    Engine* engine = nullptr;  // null: a free slot
    int inner = -1;
  };

  int slot_for(Route r) {
    for (size_t i = 0; i < files_.size(); ++i) {
      if (files_[i].engine == nullptr) {
        files_[i] = r;
        return static_cast<int>(i);
      }
    }
    files_.push_back(r);
    return static_cast<int>(files_.size() - 1);
  }

  const Route* route(int index) const {
    if (index < 0 || static_cast<size_t>(index) >= files_.size()) return nullptr;
    const Route& r = files_[static_cast<size_t>(index)];
    return r.engine == nullptr ? nullptr : &r;
  }

  std::unique_ptr<Engine> objects_;
  std::unique_ptr<Engine> descriptors_;
  std::string name_;
  std::vector<Route> files_;
};

}  // namespace

Status make_mixed_engine(std::unique_ptr<Engine> objects, std::unique_ptr<Engine> descriptors,
                         std::unique_ptr<Engine>* out) {
  if (objects == nullptr || descriptors == nullptr) {
    return Status::Internal("mixed engine: an engine is missing");
  }
  if (!descriptors->caps().sync) {
    return Status::Internal("mixed engine: the descriptor engine " + std::string(descriptors->name()) +
                            " is asynchronous; expected a synchronous one (psync)");
  }
  *out = std::make_unique<MixedEngine>(std::move(objects), std::move(descriptors));
  return Status::Ok();
}

}  // namespace iofab
