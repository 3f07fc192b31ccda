// The processed shards' format: WebDataset's, a POSIX tar (ustar) archive
// whose members are the samples, named "<key>.<ext>" ("000000042.zst"), so
// `tar tf`, Python's tarfile and webdataset read them as they are. Chosen
// over iofab's own shard format because it is what preparation jobs write
// for a loader to stream, and its per-sample header (512 bytes) and padding
// to 512 bytes are part of what such a job writes.
//
// Pure functions, no I/O; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.h"

namespace iofab {

constexpr size_t kTarBlock = 512;
// What ends an archive: two zero blocks.
constexpr size_t kTarEnd = 2 * kTarBlock;
// The largest member ustar's 11 octal digits of size can say (8 GiB - 1).
constexpr uint64_t kTarMaxMember = (1ULL << 33) - 1;

// The ustar header of a regular file member: name (at most 99 bytes), size bytes, mode 0644, mtime 0.
Status tar_member_header(std::string_view name, uint64_t size, unsigned char out[kTarBlock]);
// Zero bytes after a member of size bytes, to the next 512-byte block.
inline uint64_t tar_padding(uint64_t size) { return (kTarBlock - size % kTarBlock) % kTarBlock; }
// A member's bytes in the archive: header, data, padding.
inline uint64_t tar_member_bytes(uint64_t size) { return kTarBlock + size + tar_padding(size); }

struct TarMember {
  std::string name;
  uint64_t offset = 0;  // of the data, in the archive
  uint64_t size = 0;
};

// The members of the archive in bytes, in order, up to its end (two zero blocks, or a zero block at the
// end of bytes); zero bytes after the end are allowed (a shard padded for O_DIRECT). Invalid, naming the
// offset, on a header whose checksum or size is wrong or a member that runs past the end.
Status parse_tar(std::span<const unsigned char> bytes, std::vector<TarMember>* out);

}  // namespace iofab
