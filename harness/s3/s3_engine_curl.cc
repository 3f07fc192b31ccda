// s3: the engine of an S3 store's files. Reads are ranged GETs straight into
// the caller's buffer, up to the queue depth in flight on `connections`
// reused connections. Writes must come in order (an object has no offsets to
// write at): each is copied into the object's current part and completes at
// once; a full part goes out as an UploadPart (at most parallel_parts of an
// object in flight), and fsync is the commit: the last part, then
// CompleteMultipartUpload, or one PUT for an object no bigger than a part.
// An upload not committed when its file is removed or the engine goes (an
// error, Ctrl-C) is aborted, so no parts are left behind.
#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "harness/engines/engine.h"
#include "harness/s3/s3_object.h"
#include "harness/s3/s3_ops.h"

namespace iofab {
namespace {

constexpr uint64_t kPartTag = 1ULL << 63;  // a tag with this bit is an UploadPart's, not a caller's read

class S3Engine final : public Engine {
 public:
  explicit S3Engine(const EngineOptions& opts) : depth_(opts.queue_depth) {}

  ~S3Engine() override {
    for (size_t i = 0; i < files_.size(); ++i) {
      // Best effort: the error or the stop that left it open is what the run reports.
      if (files_[i].obj != nullptr) abort_upload(&files_[i]).ignore_error();
    }
    if (data_ != nullptr) files_target_->add_stats(data_->stats());
    if (ctl_ != nullptr) files_target_->add_stats(ctl_->stats());
  }

  std::string_view name() const override { return "s3"; }
  EngineCaps caps() const override { return EngineCaps{.sync = false, .needs_aligned_buffers = false, .moves_data = true}; }

  Status add_file(int fd, int*) override {
    return Status::Invalid("s3: add_file: fd " + std::to_string(fd) + " is a file; the s3 engine reads and writes S3 objects");
  }

  Status add_store_file(const StoreFile& file, int* index) override {
    auto obj = std::dynamic_pointer_cast<S3FileObject>(file.object());
    if (obj == nullptr) {
      return Status::Invalid("s3: " + file.path() + " is not an S3 object; the s3 engine needs an s3:// target");
    }
    if (data_ == nullptr) {
      files_target_ = obj->target();
      S3Config cfg = files_target_->config;
      cfg.connections = std::max(1u, std::min(cfg.connections, std::max(depth_, files_target_->parallel_parts)));
      if (Status s = make_s3_client(cfg, files_target_->creds, &data_); !s.ok()) return s;
      S3Config one = files_target_->config;
      one.connections = 1;
      if (Status s = make_s3_client(one, files_target_->creds, &ctl_); !s.ok()) return s;
    }
    File f;
    f.obj = std::move(obj);
    for (size_t i = 0; i < files_.size(); ++i) {
      if (files_[i].obj == nullptr) {
        files_[i] = std::move(f);
        *index = static_cast<int>(i);
        return Status::Ok();
      }
    }
    files_.push_back(std::move(f));
    *index = static_cast<int>(files_.size() - 1);
    return Status::Ok();
  }

  Status remove_file(int index) override {
    File* f = file(index);
    if (f == nullptr) return Status::Invalid("s3: remove_file: no file " + std::to_string(index));
    Status s = abort_upload(f);
    *f = File();
    return s;
  }

  Status register_buffers(std::span<const iovec>) override { return Status::Ok(); }

  QueueResult queue(const IoRequest& req, IoCompletion* done) override {
    done->tag = req.tag;
    File* f = file(req.file);
    if (f == nullptr) {
      done->result = -EBADF;
      return QueueResult::kCompleted;
    }
    if (req.op == IoOp::kRead) {
      S3Request r;
      r.key = f->obj->key();
      r.ranged = true;
      r.offset = req.offset;
      r.length = req.len;
      r.dest = static_cast<char*>(req.buf);
      r.dest_len = req.len;
      r.tag = req.tag;
      keep(data_->submit(std::move(r)));
      ++reads_;
      return QueueResult::kQueued;
    }
    if (!f->obj->writable() || f->committed) {
      done->result = -EBADF;
      return QueueResult::kCompleted;
    }
    if (req.offset != f->written) {
      keep(Status::Invalid("s3: write of " + f->obj->key() + " at offset " + std::to_string(req.offset) +
                           " after " + std::to_string(f->written) + " bytes: an object is written in order"));
      ++reads_;  // so the caller reaps, and meets the error
      return QueueResult::kQueued;
    }
    f->part.append(static_cast<const char*>(req.buf), req.len);
    f->written += req.len;
    if (f->part.size() >= f->obj->target()->part_size) keep(send_part(req.file));
    // Writes complete at once, so nobody reaps while parts are out: move them along here, without waiting.
    if (error_.ok() && data_->pending() > 0) keep(wait_some(0));
    if (!error_.ok()) {
      ++reads_;
      return QueueResult::kQueued;
    }
    done->result = req.len;
    return QueueResult::kCompleted;
  }

  Status commit() override { return Status::Ok(); }

  Status reap(unsigned min_complete, std::span<IoCompletion> out, unsigned* n) override {
    *n = 0;
    while (error_.ok() && ready_.size() < min_complete && data_ != nullptr && data_->pending() > 0) {
      keep(wait_some(1));
    }
    if (error_.ok() && min_complete == 0 && data_ != nullptr && data_->pending() > 0) keep(wait_some(0));
    if (!error_.ok()) return error_;
    while (*n < out.size() && !ready_.empty()) {
      out[(*n)++] = ready_.back();
      ready_.pop_back();
      --reads_;
    }
    return Status::Ok();
  }

  unsigned in_flight() const override { return reads_; }

  Status fsync(int index) override {
    File* f = file(index);
    if (f == nullptr) return Status::Invalid("s3: fsync: no file " + std::to_string(index));
    if (!error_.ok()) return error_;
    if (!f->obj->writable() || f->committed) return Status::Ok();
    const S3Target& t = *f->obj->target();
    if (!f->started) {
      // Never reached a part: one PUT is the whole object.
      Status s = s3_upload(*ctl_, f->obj->key(), f->part, t.part_size, 1);
      f->part.clear();
      f->committed = s.ok();
      return s;
    }
    if (!f->part.empty()) keep(send_part(index));
    while (error_.ok() && f->parts_in_flight > 0) keep(wait_some(1));
    if (!error_.ok()) return error_;
    Status s = s3_complete_upload(*ctl_, f->up);
    f->committed = s.ok();
    return s;
  }

 private:
  struct File {
    std::shared_ptr<S3FileObject> obj;
    uint64_t written = 0;     // bytes accepted: the next write's offset
    std::string part;         // the part being filled
    S3Upload up;
    bool started = false;     // a multipart upload was begun
    bool committed = false;
    unsigned parts_in_flight = 0;
  };

  File* file(int index) {
    if (index < 0 || static_cast<size_t>(index) >= files_.size() || files_[index].obj == nullptr) return nullptr;
    return &files_[static_cast<size_t>(index)];
  }

  void keep(const Status& s) { error_.update(s); }

  Status send_part(int index) {
    File& f = files_[static_cast<size_t>(index)];
    const S3Target& t = *f.obj->target();
    if (!f.started) {
      if (Status s = s3_begin_upload(*ctl_, f.obj->key(), &f.up); !s.ok()) return s;
      f.started = true;
    }
    while (f.parts_in_flight >= t.parallel_parts) {
      if (Status s = wait_some(1); !s.ok()) return s;
    }
    const auto part = static_cast<unsigned>(f.up.etags.size() + 1);
    f.up.etags.emplace_back();
    S3Request r;
    r.method = S3Method::kPut;
    r.key = f.obj->key();
    r.query = s3_part_query(f.up, part);
    r.owned_body = std::move(f.part);
    r.tag = kPartTag | (static_cast<uint64_t>(index) << 32) | part;
    f.part = std::string();
    f.part.reserve(t.part_size);
    ++f.parts_in_flight;
    return data_->submit(std::move(r));
  }

  // Takes what finished: reads become completions, parts record their ETag.
  Status wait_some(unsigned min) {
    std::vector<S3Result> done;
    Status first = data_->wait(min, &done);
    for (S3Result& r : done) {
      if ((r.tag & kPartTag) != 0) {
        File& f = files_[static_cast<size_t>((r.tag & ~kPartTag) >> 32)];
        --f.parts_in_flight;
        first.update(r.status);
        if (r.status.ok()) f.up.etags[(r.tag & 0xffffffffu) - 1] = r.etag;
      } else if (r.status.ok()) {
        ready_.push_back(IoCompletion{r.tag, static_cast<int64_t>(r.bytes)});
      } else if (r.http_status == 416) {
        ready_.push_back(IoCompletion{r.tag, 0});  // a range past the object's end: EOF
      } else {
        first.update(r.status);
      }
    }
    return first;
  }

  Status abort_upload(File* f) {
    if (!f->started || f->committed) return Status::Ok();
    f->committed = true;  // once: an abort that fails is not retried
    Status s = s3_abort_upload(*ctl_, f->up);
    // Every failed abort reaches the phase's warnings, whoever drops this status (the destructor does).
    if (!s.ok()) files_target_->note_failed_abort(f->up.key, s);
    return s;
  }

  unsigned depth_;
  std::shared_ptr<S3Target> files_target_;
  std::unique_ptr<S3Client> data_;  // GETs and parts, many in flight
  std::unique_ptr<S3Client> ctl_;   // begin, complete, abort, whole PUTs: one at a time
  std::vector<File> files_;
  std::vector<IoCompletion> ready_;
  unsigned reads_ = 0;  // queued and not yet handed back by reap
  Status error_;        // the first failed request: every later reap and fsync returns it
};

}  // namespace

Status make_s3_engine(const EngineOptions& opts, std::unique_ptr<Engine>* out) {
  *out = std::make_unique<S3Engine>(opts);
  return Status::Ok();
}

}  // namespace iofab
