// A struct's counters declared once, as a table of (wire name, member, how two ranks' values join): its
// wire form, its checked reading and its merge all walk the same table, so adding a counter is one row
// and no reader can miss it or read it unchecked.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include <nlohmann/json.hpp>

namespace iofab {

enum class Join {
  kSum,  // counts, bytes, summed times
  kMax,  // ends and worst cases
};

template <class T>
struct U64Field {
  const char* name;
  uint64_t T::*member;
  Join join = Join::kSum;
};

template <class T>
void u64_fields_to_wire(const T& from, std::span<const U64Field<T>> fields, nlohmann::json* out) {
  for (const auto& f : fields) (*out)[f.name] = from.*f.member;
}

// Every field must be there as an unsigned integer; false (and *into untouched) otherwise.
template <class T>
bool u64_fields_from_wire(const nlohmann::json& j, std::span<const U64Field<T>> fields, T* into) {
  if (!j.is_object()) return false;
  for (const auto& f : fields) {
    const auto it = j.find(f.name);
    if (it == j.end() || !it->is_number_unsigned()) return false;
  }
  for (const auto& f : fields) into->*f.member = j[f.name].template get<uint64_t>();
  return true;
}

template <class T>
void merge_u64_fields(const T& from, std::span<const U64Field<T>> fields, T* into) {
  for (const auto& f : fields) {
    uint64_t& mine = into->*f.member;
    mine = f.join == Join::kSum ? mine + from.*f.member : std::max(mine, from.*f.member);
  }
}

}  // namespace iofab
