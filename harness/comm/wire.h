// The wire form of what ranks send each other over the control plane: one
// JSON value per rank, written so it never throws (json_text) and read with
// checked access, so that a malformed answer from another rank becomes an
// error that says what is wrong instead of an exception.
//
// A type travels between ranks (rank_gather.h, agree.h) when two functions
// exist for it, found by ordinary lookup or by argument-dependent lookup in
// the type's own namespace:
//   nlohmann::json to_wire(const T& value);
//   Status from_wire(const nlohmann::json& j, T* out);  // Ok, or why j is not a T
// They are given here for the plain types, vectors, optionals, JSON itself
// and Status; WireReader reads the fields of an object for a type's own
// from_wire. A struct that declares its fields once (wire_fields(), below)
// needs neither: its pair walks that list.
#pragma once

#include <concepts>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "harness/core/status.h"

namespace iofab {

// A Status on the wire, the one form every rank uses: {"code": <Status::Code>, "message": "..."}.
nlohmann::json to_wire(const Status& s);
Status from_wire(const nlohmann::json& j, Status* out);

nlohmann::json to_wire(const std::string& s);
nlohmann::json to_wire(const char* s);  // a string, never the bool a pointer would convert to
Status from_wire(const nlohmann::json& j, std::string* out);
nlohmann::json to_wire(bool b);
Status from_wire(const nlohmann::json& j, bool* out);
nlohmann::json to_wire(uint64_t v);
Status from_wire(const nlohmann::json& j, uint64_t* out);
nlohmann::json to_wire(int v);
Status from_wire(const nlohmann::json& j, int* out);
// A finite number; JSON has no NaN or infinity (they would arrive as null).
nlohmann::json to_wire(double v);
Status from_wire(const nlohmann::json& j, double* out);
// Any JSON value, as it is.
nlohmann::json to_wire(const nlohmann::json& j);
Status from_wire(const nlohmann::json& j, nlohmann::json* out);

// A struct that ranks send each other declares its fields once, as a list of (wire name, member), and
// its wire form and its checked reading both walk that list: a field added to the list is written and
// read, and no reader can miss it or read it unchecked (WireReader checks each one's type).
//
//   struct RankTally {
//     IoTally tally;
//     Status status;
//     nlohmann::json requests;
//     static constexpr auto wire_fields() {
//       return std::tuple{wire_field("tally", &RankTally::tally), wire_field("status", &RankTally::status),
//                         wire_optional("requests", &RankTally::requests)};
//     }
//   };
//
// A member's own type travels by its own pair (the ones here, or one found in its namespace). Declared
// here, defined after WireReader, so that the templates between (vectors, optionals, WireReader) find
// them for a struct declared in an unnamed namespace, where argument-dependent lookup would not.
template <typename T>
concept HasWireFields = requires { T::wire_fields(); };
template <HasWireFields T>
nlohmann::json to_wire(const T& v);
template <HasWireFields T>
Status from_wire(const nlohmann::json& j, T* out);

template <typename T>
nlohmann::json to_wire(const std::optional<T>& v);
template <typename T>
Status from_wire(const nlohmann::json& j, std::optional<T>* out);

template <typename T>
nlohmann::json to_wire(const std::vector<T>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& x : v) a.push_back(to_wire(x));
  return a;
}

// A problem `why` found under `where` (a field's name or an item's "[i]"), named as the suite's errors
// name fields: "key: why", or "key[i]: ..." where why is an item's own.
std::string wire_path(const std::string& where, const std::string& why);

template <typename T>
Status from_wire(const nlohmann::json& j, std::vector<T>* out) {
  if (!j.is_array()) return Status::Internal("expected an array, got " + std::string(j.type_name()));
  std::vector<T> v(j.size());
  for (size_t i = 0; i < v.size(); ++i) {
    Status s = from_wire(j[i], &v[i]);
    if (!s.ok()) return Status::Internal(wire_path("[" + std::to_string(i) + "]", s.message()));
  }
  *out = std::move(v);
  return Status::Ok();
}

// Types that write and read themselves travel as they are: a member
// `to_wire()` where the type has a wire form of its own (packed arrays:
// IoTally, Histogram, TimeSeries), else `to_json()`; and a member
// `bool from_json(const json&)` or a static `bool from_json(const json&, T*)`
// (IoTally, EpochStats, SizeSample, ...) that reads it.
template <typename T>
requires requires(const T& t) {
  { t.to_wire() } -> std::convertible_to<nlohmann::json>;
}
nlohmann::json to_wire(const T& v) { return v.to_wire(); }

template <typename T>
requires(
    requires(const T& t) {
      { t.to_json() } -> std::convertible_to<nlohmann::json>;
    } &&
    !requires(const T& t) { t.to_wire(); }) nlohmann::json to_wire(const T& v) {
  return v.to_json();
}

template <typename T>
requires requires(T& t, const nlohmann::json& j) {
  { t.from_json(j) } -> std::same_as<bool>;
}
Status from_wire(const nlohmann::json& j, T* out) {
  return out->from_json(j) ? Status::Ok() : Status::Internal("malformed");
}

template <typename T>
requires requires(const nlohmann::json& j, T* t) {
  { T::from_json(j, t) } -> std::same_as<bool>;
}
Status from_wire(const nlohmann::json& j, T* out) {
  return T::from_json(j, out) ? Status::Ok() : Status::Internal("malformed");
}

// A value that may be absent travels as null.
template <typename T>
nlohmann::json to_wire(const std::optional<T>& v) {
  return v ? to_wire(*v) : nlohmann::json(nullptr);
}

template <typename T>
Status from_wire(const nlohmann::json& j, std::optional<T>* out) {
  if (j.is_null()) {
    out->reset();
    return Status::Ok();
  }
  T v{};
  if (Status s = from_wire(j, &v); !s.ok()) return s;
  *out = std::move(v);
  return Status::Ok();
}

// Reads the fields of a JSON object, each with its type checked. The first
// problem is kept and later reads do nothing, so a from_wire reads every
// field in a row and returns status() once:
//   WireReader r(j);
//   r.field("bytes", &out->bytes).field("status", &out->status);
//   return r.status();
class WireReader {
 public:
  explicit WireReader(const nlohmann::json& j);

  // A field that must be there.
  template <typename T>
  WireReader& field(const char* key, T* out) {
    if (const nlohmann::json* v = find(key, true)) check(key, from_wire(*v, out));
    return *this;
  }
  // A field that may be missing or null; *out keeps its value then.
  template <typename T>
  WireReader& optional(const char* key, T* out) {
    if (const nlohmann::json* v = find(key, false); v != nullptr && !v->is_null())
      check(key, from_wire(*v, out));
    return *this;
  }

  Status status() const { return status_; }

 private:
  const nlohmann::json* find(const char* key, bool required);
  void check(const char* key, const Status& s);

  const nlohmann::json& j_;
  Status status_;
};

template <typename T, typename M>
struct WireField {
  const char* name;
  M T::*member;
  bool required = true;  // false: a reader takes a missing or null field as the member's default
};

// A field every sender writes and every reader needs.
template <typename T, typename M>
constexpr WireField<T, M> wire_field(const char* name, M T::*member) {
  return {name, member, true};
}

// A field an older sender may lack (or send as null): the member keeps its value then.
template <typename T, typename M>
constexpr WireField<T, M> wire_optional(const char* name, M T::*member) {
  return {name, member, false};
}

template <HasWireFields T>
nlohmann::json to_wire(const T& v) {
  nlohmann::json j = nlohmann::json::object();
  std::apply([&](const auto&... f) { ((j[f.name] = to_wire(v.*(f.member))), ...); }, T::wire_fields());
  return j;
}

template <HasWireFields T>
Status from_wire(const nlohmann::json& j, T* out) {
  WireReader r(j);
  std::apply(
      [&](const auto&... f) {
        ((f.required ? r.field(f.name, &(out->*(f.member))) : r.optional(f.name, &(out->*(f.member)))), ...);
      },
      T::wire_fields());
  return r.status();
}

// The bytes that carry a wire value: MessagePack (nlohmann's), which holds the packed arrays
// (packed_u64.h) as binary and numbers without text, and passes strings that are not UTF-8 through
// as they are. Rank 0 decodes one per rank: docs/scale.md measures what that costs.
std::string wire_bytes(const nlohmann::json& j);
// false (and *out discarded) when bytes are not one whole MessagePack value.
bool wire_decode(const std::string& bytes, nlohmann::json* out);

}  // namespace iofab
