// Long arrays of unsigned integers on the wire as one MessagePack binary
// value instead of a JSON array: rank 0 reads every rank's histograms,
// series and per-call times, and an array costs a DOM node and an allocation
// per number (docs/scale.md measures the merge). Each value is a LEB128
// varint (7 bits a byte, low bits first, the high bit set on all but the
// last byte; protobuf's encoding): a bucket count or a gap of 1 byte, an
// interval's bytes of 4 or 5, smaller than the same numbers as text.
// Readers take either form, so a report's plain arrays still read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace iofab {

// n values, packed.
nlohmann::json pack_u64(const uint64_t* values, size_t n);
inline nlohmann::json pack_u64(const std::vector<uint64_t>& v) { return pack_u64(v.data(), v.size()); }

// Reads a packed value or an array of unsigned integers into *out (replaced). false, *out
// unchanged, when j is neither, a packed value ends inside a number or holds one past 64 bits, or
// it holds more than max_values values.
bool unpack_u64(const nlohmann::json& j, std::vector<uint64_t>* out, size_t max_values = SIZE_MAX);

}  // namespace iofab
