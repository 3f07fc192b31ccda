// One writer thread's shards: samples appended as tar members (prepare_tar.h)
// into a staging buffer, written out a block at a time through the writer's
// Engine; a shard that holds shard_size bytes is closed (archive end, the
// tail padded with zeros to 4 KiB under O_DIRECT, fsync when asked or when
// the store commits files that way) and the next one opened.
//
// Thread-safety: one ShardWriter per writer thread, with that thread's engine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "harness/core/status.h"
#include "harness/engines/engine.h"
#include "harness/engines/io_buffers.h"
#include "harness/store/store.h"

namespace iofab {

struct ShardWriterOptions {
  std::string folder;       // where shards go (it exists)
  std::string name_prefix;  // shard n is <name_prefix><n, 6 digits>.tar
  uint64_t shard_size = 64ULL << 20;
  uint64_t block_size = 1ULL << 20;  // a multiple of 4 KiB
  bool direct = false;
  bool fsync = true;
};

class ShardWriter {
 public:
  ShardWriter(Store& store, Engine& engine, ShardWriterOptions opts);
  ShardWriter(const ShardWriter&) = delete;
  ShardWriter& operator=(const ShardWriter&) = delete;
  ~ShardWriter();

  // Allocates the staging buffer.
  Status init();
  // Appends one member (opening a shard when none is open; closing it when it is full).
  Status add(std::string_view member, const unsigned char* data, uint64_t len);
  // Closes the open shard, if any.
  Status finish();

  uint64_t bytes_written() const { return written_; }
  uint64_t shards() const { return shards_; }

 private:
  Status open_next();
  // Copies n bytes of p (zeros when p is null) into staging, writing full blocks out.
  Status append(const unsigned char* p, uint64_t n);
  // Writes the staged bytes at the shard's end; last: the shard's final write (padded under direct).
  Status flush(bool last);
  Status close_shard();

  Store& store_;
  Engine& engine_;
  ShardWriterOptions opts_;
  IoBuffers staging_;
  StoreFile file_;
  int handle_ = -1;
  uint64_t file_offset_ = 0;  // where staging's first byte goes
  uint64_t staged_ = 0;       // bytes in staging
  uint64_t shard_bytes_ = 0;  // the open shard's bytes so far, staged ones included
  uint64_t written_ = 0;
  uint64_t shards_ = 0;
};

}  // namespace iofab
