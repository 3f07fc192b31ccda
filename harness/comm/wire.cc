#include "harness/comm/wire.h"

#include <cmath>
#include <limits>

#include "harness/core/json_input.h"
#include "harness/core/json_text.h"

namespace iofab {

using nlohmann::json;

namespace {

Status wrong_type(const char* expected, const json& j) {
  return Status::Internal(std::string("expected ") + expected + ", got " + j.type_name());
}

}  // namespace

json to_wire(const Status& s) { return {{"code", static_cast<int>(s.code())}, {"message", s.message()}}; }

Status from_wire(const json& j, Status* out) {
  int code = 0;
  std::string message;
  WireReader r(j);
  r.field("code", &code).field("message", &message);
  if (!r.status().ok()) return r.status();
  if (code < static_cast<int>(Status::Code::kOk) || code > static_cast<int>(Status::Code::kInternal)) {
    return Status::Internal("code: " + std::to_string(code) + " is no status code");
  }
  *out = Status::FromCode(static_cast<Status::Code>(code), std::move(message));
  return Status::Ok();
}

json to_wire(const std::string& s) { return s; }
json to_wire(const char* s) { return std::string(s); }

Status from_wire(const json& j, std::string* out) {
  if (!j.is_string()) return wrong_type("a string", j);
  *out = j.get<std::string>();
  return Status::Ok();
}

json to_wire(bool b) { return b; }

Status from_wire(const json& j, bool* out) {
  if (!j.is_boolean()) return wrong_type("true or false", j);
  *out = j.get<bool>();
  return Status::Ok();
}

json to_wire(uint64_t v) { return v; }

Status from_wire(const json& j, uint64_t* out) {
  return json_u64(j, out) ? Status::Ok() : wrong_type("an integer >= 0", j);
}

json to_wire(int v) { return v; }

Status from_wire(const json& j, int* out) {
  // Integers that fit in an int64 arrive as number_integer when negative, number_unsigned otherwise.
  const bool fits = (j.is_number_unsigned() && j.get<uint64_t>() <= static_cast<uint64_t>(INT32_MAX)) ||
                    (j.is_number_integer() && !j.is_number_unsigned() && j.get<int64_t>() >= INT32_MIN &&
                     j.get<int64_t>() <= INT32_MAX);
  if (!fits) return wrong_type("an int", j);
  *out = j.is_number_unsigned() ? static_cast<int>(j.get<uint64_t>()) : static_cast<int>(j.get<int64_t>());
  return Status::Ok();
}

// null, as JSON text would carry it: MessagePack could carry NaN, but a rank's figures must be finite.
json to_wire(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

Status from_wire(const json& j, double* out) {
  if (!j.is_number() || !std::isfinite(j.get<double>())) return wrong_type("a finite number", j);
  *out = j.get<double>();
  return Status::Ok();
}

json to_wire(const json& j) { return j; }

Status from_wire(const json& j, json* out) {
  *out = j;
  return Status::Ok();
}

WireReader::WireReader(const json& j) : j_(j) {
  if (!j.is_object()) status_ = wrong_type("an object", j);
}

const json* WireReader::find(const char* key, bool required) {
  if (!status_.ok()) return nullptr;
  const auto it = j_.find(key);
  if (it != j_.end()) return &*it;
  if (required) status_ = Status::Internal(std::string(key) + ": missing");
  return nullptr;
}

std::string wire_path(const std::string& where, const std::string& why) {
  return where + (why.starts_with('[') ? "" : ": ") + why;
}

void WireReader::check(const char* key, const Status& s) {
  if (status_.ok() && !s.ok()) status_ = Status::Internal(wire_path(key, s.message()));
}

std::string wire_bytes(const json& j) {
  std::string out;
  json::to_msgpack(j, nlohmann::detail::output_adapter<char>(out));
  return out;
}

bool wire_decode(const std::string& bytes, json* out) {
  *out = json::from_msgpack(bytes, /*strict=*/true, /*allow_exceptions=*/false);
  return !out->is_discarded();
}

}  // namespace iofab
