// The hash a checkpoint's manifest records for every shard: the plain
// XXH3-64 (seed 0) of the whole file, so `xxhsum -H3 FILE` prints the same.
// The writer hashes each block as it writes it and a restore as it reads it,
// so verification never costs a second pass over the data.
//
// Thread-safety: free functions are reentrant; a StreamingXxh3 is owned by
// one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace iofab {

// Streaming XXH3-64: fed block by block as the bytes are written or read.
class StreamingXxh3 {
 public:
  StreamingXxh3();
  ~StreamingXxh3();
  StreamingXxh3(const StreamingXxh3&) = delete;
  StreamingXxh3& operator=(const StreamingXxh3&) = delete;

  void reset();
  void update(const void* data, size_t len);
  uint64_t digest() const;

 private:
  void* state_;  // XXH3_state_t, kept out of this header
};

// XXH3-64 of a buffer in one call (tests, small files).
uint64_t xxh3_of(const void* data, size_t len);
// 16 lowercase hex digits, as xxhsum prints them.
std::string xxh3_hex(uint64_t h);
std::optional<uint64_t> parse_xxh3_hex(std::string_view text);

}  // namespace iofab
