#include "harness/core/packed_u64.h"

#include "harness/core/json_input.h"

namespace iofab {

using nlohmann::json;

json pack_u64(const uint64_t* values, size_t n) {
  json::binary_t::container_type bytes;
  bytes.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = values[i];
    while (v >= 0x80) {
      bytes.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    bytes.push_back(static_cast<uint8_t>(v));
  }
  return json::binary(std::move(bytes));
}

bool unpack_u64(const json& j, std::vector<uint64_t>* out, size_t max_values) {
  if (j.is_binary()) {
    const json::binary_t& bytes = j.get_binary();
    std::vector<uint64_t> v;
    uint64_t value = 0;
    unsigned shift = 0;
    for (uint8_t b : bytes) {
      const uint64_t bits = b & 0x7f;
      // The 10th byte may hold only the top bit of 64; anything more is past 64 bits.
      if (shift == 63 && bits > 1) return false;
      value |= bits << shift;
      if (b & 0x80) {
        shift += 7;
        if (shift > 63) return false;
        continue;
      }
      if (v.size() == max_values) return false;
      v.push_back(value);
      value = 0;
      shift = 0;
    }
    if (shift != 0) return false;  // ended inside a number
    *out = std::move(v);
    return true;
  }
  if (!j.is_array() || j.size() > max_values) return false;
  std::vector<uint64_t> v(j.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (!json_u64(j[i], &v[i])) return false;
  }
  *out = std::move(v);
  return true;
}

}  // namespace iofab
