#include "workloads/checkpoint/xxh3.h"

#include <xxhash.h>
// x86-64 builds of libxxhash export runtime-dispatched entry points that use
// AVX2 or AVX-512 where the CPU has them: about twice the SSE2 baseline's speed.
#if (defined(__x86_64__) || defined(_M_X64)) && __has_include(<xxh_x86dispatch.h>)
#include <xxh_x86dispatch.h>
#define IOFAB_XXH3_UPDATE XXH3_64bits_update_dispatch
#define IOFAB_XXH3_ONESHOT XXH3_64bits_dispatch
#else
#define IOFAB_XXH3_UPDATE XXH3_64bits_update
#define IOFAB_XXH3_ONESHOT XXH3_64bits
#endif

namespace iofab {

StreamingXxh3::StreamingXxh3() : state_(XXH3_createState()) { reset(); }

StreamingXxh3::~StreamingXxh3() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }

void StreamingXxh3::reset() { XXH3_64bits_reset(static_cast<XXH3_state_t*>(state_)); }

void StreamingXxh3::update(const void* data, size_t len) {
  IOFAB_XXH3_UPDATE(static_cast<XXH3_state_t*>(state_), data, len);
}

uint64_t StreamingXxh3::digest() const {
  return XXH3_64bits_digest(static_cast<const XXH3_state_t*>(state_));
}

uint64_t xxh3_of(const void* data, size_t len) { return IOFAB_XXH3_ONESHOT(data, len); }

std::string xxh3_hex(uint64_t h) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i) {
    s[static_cast<size_t>(i)] = kDigits[h & 0xf];
    h >>= 4;
  }
  return s;
}

std::optional<uint64_t> parse_xxh3_hex(std::string_view text) {
  if (text.size() != 16) return std::nullopt;
  uint64_t h = 0;
  for (char c : text) {
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return std::nullopt;
    h = (h << 4) | static_cast<uint64_t>(d);
  }
  return h;
}

}  // namespace iofab
