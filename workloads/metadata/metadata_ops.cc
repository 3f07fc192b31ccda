#include "workloads/metadata/metadata_ops.h"

#include <algorithm>
#include <cstring>

#include "harness/engines/data_fill.h"
#include "harness/store/store_folder.h"

namespace iofab {

MdFileOps::MdFileOps(const MetadataParams& p, std::unique_ptr<Engine> engine, Store* objects)
    : p_(p), engine_(std::move(engine)), objects_(objects), expected_(p.file_size), got_(p.file_size) {}

void MdFileOps::make_bytes(int owner, uint64_t i) {
  DataStream(data_key(p_.seed, static_cast<uint64_t>(owner), i)).fill(expected_.data(), expected_.size(), 0);
}

Status MdFileOps::whole_io(const StoreFile& file, IoOp op, void* buf, uint64_t len, bool sync) {
  int h = -1;
  if (Status s = engine_->add_store_file(file, &h); !s.ok()) return s;
  Status st;
  uint64_t done = 0;
  while (st.ok() && done < len) {
    IoRequest req{.file = h,
                  .op = op,
                  .buf = static_cast<unsigned char*>(buf) + done,
                  .len = static_cast<uint32_t>(std::min<uint64_t>(len - done, 1u << 30)),
                  .offset = done};
    IoCompletion c;
    QueueResult q = engine_->queue(req, &c);
    if (q != QueueResult::kCompleted) {
      unsigned n = 0;
      st = engine_->commit();
      if (st.ok()) st = engine_->reap(1, std::span<IoCompletion>(&c, 1), &n);
      if (st.ok() && n != 1) st = Status::IoError(file.path() + ": the engine completed nothing");
    }
    if (!st.ok()) break;
    if (c.result < 0) {
      st = Status::FromErrno(std::string(op == IoOp::kWrite ? "write " : "read ") + file.path(),
                             static_cast<int>(-c.result));
    } else if (c.result == 0) {
      st = Status::IoError(file.path() + ": " + std::to_string(done) + " of " + std::to_string(len) +
                           " bytes, then end of file");
    }
    done += c.result > 0 ? static_cast<uint64_t>(c.result) : 0;
  }
  if (st.ok() && sync) st = engine_->fsync(h);
  st.update(engine_->remove_file(h));
  return st;
}

Status MdFileOps::create(StoreFolder& folder, const std::string& name, int owner, uint64_t i) {
  if (objects_ != nullptr) return put_object(folder, name, owner, i);
  StoreFile file;
  if (Status s = folder.create(name, {}, &file); !s.ok()) return s;
  if (p_.file_size == 0 && !p_.fsync) return Status::Ok();
  make_bytes(owner, i);
  return whole_io(file, IoOp::kWrite, expected_.data(), expected_.size(), p_.fsync);
}

Status MdFileOps::put_object(const StoreFolder& folder, const std::string& name, int owner, uint64_t i) {
  make_bytes(owner, i);
  const std::string_view bytes(reinterpret_cast<const char*>(expected_.data()), expected_.size());
  return objects_->put_file(join_store_path(folder.path(), name), bytes);
}

Status MdFileOps::check_stat(const std::string& path, const EntryInfo& info) const {
  if (info.kind == EntryKind::kMissing) return Status::FromErrno("stat " + path, ENOENT);
  if (info.kind != EntryKind::kFile || info.size != p_.file_size) {
    return Status::IoError("stat " + path + ": expected a file of " + std::to_string(p_.file_size) +
                           " bytes, found " +
                           (info.kind == EntryKind::kFile ? std::to_string(info.size) + " bytes"
                                                          : std::string("something else")));
  }
  return Status::Ok();
}

Status MdFileOps::stat(StoreFolder& folder, const std::string& name) {
  const std::string path = join_store_path(folder.path(), name);
  EntryInfo info;
  Status s = objects_ != nullptr ? objects_->stat_file(path, &info) : folder.stat(name, &info);
  return s.ok() ? check_stat(path, info) : s;
}

Status MdFileOps::open(StoreFolder& folder, const std::string& name) {
  StoreFile file;
  return folder.open(name, {}, &file);
}

Status MdFileOps::check_bytes(const std::string& path, const unsigned char* got, uint64_t len, int owner,
                              uint64_t i) {
  make_bytes(owner, i);
  if (len != expected_.size() || std::memcmp(got, expected_.data(), len) != 0) {
    return Status::IoError("read " + path + ": the bytes differ from what rank " + std::to_string(owner) +
                           " wrote");
  }
  return Status::Ok();
}

Status MdFileOps::get_object(const StoreFolder& folder, const std::string& name, int owner, uint64_t i) {
  const std::string path = join_store_path(folder.path(), name);
  std::string bytes;
  if (Status s = objects_->get_file(path, p_.file_size, &bytes); !s.ok()) return s;
  return check_bytes(path, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), owner, i);
}

Status MdFileOps::read(StoreFolder& folder, const std::string& name, int owner, uint64_t i) {
  if (objects_ != nullptr) return get_object(folder, name, owner, i);
  StoreFile file;
  if (Status s = folder.open(name, {}, &file); !s.ok()) return s;
  if (p_.file_size == 0) return Status::Ok();
  if (Status s = whole_io(file, IoOp::kRead, got_.data(), got_.size(), false); !s.ok()) return s;
  return check_bytes(file.path(), got_.data(), got_.size(), owner, i);
}

}  // namespace iofab
