#include "workloads/prepare/prepare_shard_writer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "harness/engines/io_pump.h"
#include "harness/phase/io_params.h"
#include "workloads/prepare/prepare_tar.h"

namespace iofab {

ShardWriter::ShardWriter(Store& store, Engine& engine, ShardWriterOptions opts)
    : store_(store), engine_(engine), opts_(std::move(opts)) {}

ShardWriter::~ShardWriter() {
  // A shard left open by an error: its engine handle goes, the file closes with file_.
  if (handle_ >= 0) engine_.remove_file(handle_).ignore_error();  // the error that left it open is returned
}

Status ShardWriter::init() { return IoBuffers::allocate(1, opts_.block_size, &staging_); }

Status ShardWriter::open_next() {
  char name[32];
  std::snprintf(name, sizeof name, "%06llu.tar", static_cast<unsigned long long>(shards_));
  OpenOptions oo;
  oo.direct = opts_.direct;
  Status s = store_.create(join_store_path(opts_.folder, opts_.name_prefix + name), oo, &file_);
  if (s.ok()) s = engine_.add_store_file(file_, &handle_);
  if (!s.ok()) return s;
  file_offset_ = 0;
  staged_ = 0;
  shard_bytes_ = 0;
  ++shards_;
  return Status::Ok();
}

Status ShardWriter::flush(bool last) {
  uint64_t len = staged_;
  if (last && opts_.direct) {
    // O_DIRECT writes whole 4 KiB blocks: zeros after the archive's end, which tar readers skip.
    const uint64_t padded = (len + kDirectAlignment - 1) / kDirectAlignment * kDirectAlignment;
    std::memset(static_cast<unsigned char*>(staging_.at(0)) + len, 0, padded - len);
    len = padded;
  }
  if (len == 0) return Status::Ok();
  IoPump pump(engine_, staging_, {.slots = 1});
  bool sent = false;
  Status s = pump.run(
      [&](unsigned, IoRequest& req) {
        if (sent) return false;
        req.file = handle_;
        req.op = IoOp::kWrite;
        req.offset = file_offset_;
        req.len = static_cast<uint32_t>(len);
        sent = true;
        return true;
      },
      [](unsigned, const IoRequest&) {});
  if (!s.ok()) return s;
  file_offset_ += len;
  written_ += len;
  staged_ = 0;
  return Status::Ok();
}

Status ShardWriter::append(const unsigned char* p, uint64_t n) {
  auto* buf = static_cast<unsigned char*>(staging_.at(0));
  while (n > 0) {
    const uint64_t take = std::min(n, staging_.size() - staged_);
    if (p != nullptr) {
      std::memcpy(buf + staged_, p, take);
      p += take;
    } else {
      std::memset(buf + staged_, 0, take);
    }
    staged_ += take;
    shard_bytes_ += take;
    n -= take;
    if (staged_ == staging_.size()) {
      if (Status s = flush(false); !s.ok()) return s;
    }
  }
  return Status::Ok();
}

Status ShardWriter::close_shard() {
  Status s = append(nullptr, kTarEnd);
  if (s.ok()) s = flush(true);
  // An object store's shard exists only once committed, whatever fsync says.
  if (s.ok() && (opts_.fsync || store_.caps().commit_per_file)) s = engine_.fsync(handle_);
  s.update(engine_.remove_file(handle_));
  handle_ = -1;
  file_ = StoreFile{};
  return s;
}

Status ShardWriter::add(std::string_view member, const unsigned char* data, uint64_t len) {
  if (handle_ < 0) {
    if (Status s = open_next(); !s.ok()) return s;
  }
  unsigned char header[kTarBlock];
  Status s = tar_member_header(member, len, header);
  if (s.ok()) s = append(header, kTarBlock);
  if (s.ok()) s = append(data, len);
  if (s.ok()) s = append(nullptr, tar_padding(len));
  if (s.ok() && shard_bytes_ + kTarEnd >= opts_.shard_size) s = close_shard();
  return s;
}

Status ShardWriter::finish() { return handle_ >= 0 ? close_shard() : Status::Ok(); }

}  // namespace iofab
