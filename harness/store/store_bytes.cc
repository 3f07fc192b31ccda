#include "harness/store/store_bytes.h"

#include <memory>

#include "harness/engines/engine.h"

namespace iofab {
namespace {

constexpr uint32_t kChunk = 1u << 20;

Status open_engine(Store& store, const StoreFile& file, std::unique_ptr<Engine>* engine, int* handle) {
  std::string name;
  if (Status s = engine_for_store(store, "auto", &name); !s.ok()) return s;
  if (Status s = make_engine(name, EngineOptions{}, engine); !s.ok()) return s;
  return (*engine)->add_store_file(file, handle);
}

// One I/O, start to end; *moved gets the bytes it moved.
Status one_io(Engine& e, const IoRequest& req, int64_t* moved) {
  IoCompletion c;
  if (e.queue(req, &c) == QueueResult::kCompleted) {
    *moved = c.result;
  } else {
    if (Status s = e.commit(); !s.ok()) return s;
    unsigned n = 0;
    if (Status s = e.reap(1, std::span<IoCompletion>(&c, 1), &n); !s.ok()) return s;
    if (n != 1) return Status::Internal("store_bytes: no completion");
    *moved = c.result;
  }
  if (*moved < 0) return Status::FromErrno(std::string(req.op == IoOp::kRead ? "read" : "write"), static_cast<int>(-*moved));
  return Status::Ok();
}

}  // namespace

Status write_store_file(Store& store, const StoreFile& file, std::string_view bytes) {
  std::unique_ptr<Engine> e;
  int h = -1;
  if (Status s = open_engine(store, file, &e, &h); !s.ok()) return s;
  std::string copy(bytes);  // the engine's buffer is writable memory
  uint64_t done = 0;
  while (done < copy.size()) {
    IoRequest req;
    req.file = h;
    req.op = IoOp::kWrite;
    req.buf = copy.data() + done;
    req.len = static_cast<uint32_t>(std::min<uint64_t>(kChunk, copy.size() - done));
    req.offset = done;
    int64_t moved = 0;
    if (Status s = one_io(*e, req, &moved); !s.ok()) return Status::FromCode(s.code(), file.path() + ": " + s.message());
    if (moved <= 0) return Status::IoError(file.path() + ": a write moved nothing");
    done += static_cast<uint64_t>(moved);
  }
  return e->fsync(h);
}

Status read_store_file(Store& store, const StoreFile& file, uint64_t max_bytes, std::string* out) {
  std::unique_ptr<Engine> e;
  int h = -1;
  if (Status s = open_engine(store, file, &e, &h); !s.ok()) return s;
  out->clear();
  std::string chunk(kChunk, '\0');
  for (;;) {
    IoRequest req;
    req.file = h;
    req.buf = chunk.data();
    req.len = kChunk;
    req.offset = out->size();
    int64_t moved = 0;
    if (Status s = one_io(*e, req, &moved); !s.ok()) return Status::FromCode(s.code(), file.path() + ": " + s.message());
    out->append(chunk.data(), static_cast<size_t>(moved));
    if (out->size() > max_bytes) {
      return Status::Invalid(file.path() + ": larger than " + std::to_string(max_bytes) + " bytes, the most iofab reads for this file");
    }
    if (moved < static_cast<int64_t>(kChunk)) return Status::Ok();
  }
}

}  // namespace iofab
