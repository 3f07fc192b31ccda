#include "workloads/prepare/prepare_tar.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace iofab {
namespace {

// ustar's field offsets and widths.
constexpr size_t kName = 0, kNameLen = 100;
constexpr size_t kMode = 100, kUid = 108, kGid = 116, kSize = 124, kMtime = 136, kChksum = 148;
constexpr size_t kType = 156, kMagic = 257, kVersion = 263, kUname = 265, kGname = 297;

// Writes v as width-1 octal digits and a NUL.
void put_octal(unsigned char* field, size_t width, uint64_t v) {
  std::snprintf(reinterpret_cast<char*>(field), width, "%0*llo", static_cast<int>(width - 1),
                static_cast<unsigned long long>(v));
}

uint64_t header_sum(const unsigned char* h) {
  uint64_t sum = 0;
  for (size_t i = 0; i < kTarBlock; ++i) sum += (i >= kChksum && i < kChksum + 8) ? ' ' : h[i];
  return sum;
}

// Octal digits (spaces and NULs around them allowed); false on anything else.
bool read_octal(const unsigned char* field, size_t width, uint64_t* v) {
  *v = 0;
  size_t i = 0;
  while (i < width && field[i] == ' ') ++i;
  bool any = false;
  for (; i < width && field[i] >= '0' && field[i] <= '7'; ++i) {
    *v = *v * 8 + static_cast<uint64_t>(field[i] - '0');
    any = true;
  }
  for (; i < width; ++i) {
    if (field[i] != ' ' && field[i] != 0) return false;
  }
  return any;
}

bool all_zero(const unsigned char* p, size_t n) {
  return std::all_of(p, p + n, [](unsigned char c) { return c == 0; });
}

}  // namespace

Status tar_member_header(std::string_view name, uint64_t size, unsigned char out[kTarBlock]) {
  if (name.empty() || name.size() >= kNameLen) {
    return Status::Invalid("tar member name must be 1 to 99 bytes: " + std::string(name));
  }
  if (size > kTarMaxMember) return Status::Invalid("tar member larger than 8 GiB: " + std::string(name));
  std::memset(out, 0, kTarBlock);
  std::memcpy(out + kName, name.data(), name.size());
  put_octal(out + kMode, 8, 0644);
  put_octal(out + kUid, 8, 0);
  put_octal(out + kGid, 8, 0);
  put_octal(out + kSize, 12, size);
  put_octal(out + kMtime, 12, 0);
  out[kType] = '0';
  std::memcpy(out + kMagic, "ustar", 6);
  std::memcpy(out + kVersion, "00", 2);
  std::memcpy(out + kUname, "iofab", 5);
  std::memcpy(out + kGname, "iofab", 5);
  // The checksum: six octal digits, a NUL and a space, over the header with the field as spaces.
  std::snprintf(reinterpret_cast<char*>(out + kChksum), 8, "%06llo",
                static_cast<unsigned long long>(header_sum(out)));
  out[kChksum + 7] = ' ';
  return Status::Ok();
}

Status parse_tar(std::span<const unsigned char> bytes, std::vector<TarMember>* out) {
  out->clear();
  uint64_t at = 0;
  auto bad = [&](const std::string& why) {
    return Status::Invalid("tar archive: " + why + " at offset " + std::to_string(at));
  };
  while (true) {
    if (at + kTarBlock > bytes.size()) return bad("no end-of-archive blocks");
    const unsigned char* h = bytes.data() + at;
    if (all_zero(h, kTarBlock)) {
      // The end: the second zero block, or the archive's end, and nothing but zeros after it.
      if (!all_zero(h, bytes.size() - at)) return bad("data after a zero block");
      return Status::Ok();
    }
    uint64_t sum = 0, size = 0;
    if (!read_octal(h + kChksum, 8, &sum) || sum != header_sum(h)) return bad("header checksum mismatch");
    if (!read_octal(h + kSize, 12, &size)) return bad("size field is not octal");
    if (h[kType] != '0' && h[kType] != 0) return bad("member is not a regular file");
    TarMember m;
    m.name.assign(reinterpret_cast<const char*>(h + kName),
                  strnlen(reinterpret_cast<const char*>(h + kName), kNameLen));
    m.offset = at + kTarBlock;
    m.size = size;
    if (size > bytes.size() || m.offset + size > bytes.size())
      return bad("member " + m.name + " runs past the end");
    at = m.offset + size + tar_padding(size);
    out->push_back(std::move(m));
  }
}

}  // namespace iofab
