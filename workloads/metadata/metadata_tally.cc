#include "workloads/metadata/metadata_tally.h"

#include <cstring>

#include "harness/comm/wire.h"

namespace iofab {

void MdTally::merge(const MdTally& other) {
  ops += other.ops;
  ns = std::max(ns, other.ns);
  latency.merge(other.latency);
  for (const auto& [name, n] : other.errors) errors[name] += n;
  if (first_error.empty()) first_error = other.first_error;
}

void MdTally::count_error(const Status& s) {
  const char* name = s.sys_errno() != 0 ? strerrorname_np(s.sys_errno()) : nullptr;
  ++errors[name != nullptr ? name : "other"];
  if (first_error.empty()) first_error = s.message();
}

nlohmann::json MdTally::to_wire() const {
  nlohmann::json e = nlohmann::json::object();
  for (const auto& [name, n] : errors) e[name] = n;
  return {{"ops", ops}, {"ns", ns}, {"latency", latency.to_wire()}, {"errors", e}, {"first_error", first_error}};
}

bool MdTally::from_json(const nlohmann::json& j, MdTally* out) {
  nlohmann::json errors;
  WireReader r(j);
  r.field("ops", &out->ops).field("ns", &out->ns).field("latency", &out->latency);
  r.field("errors", &errors).field("first_error", &out->first_error);
  if (!r.status().ok() || !errors.is_object()) return false;
  for (const auto& [name, n] : errors.items()) {
    if (!n.is_number_unsigned()) return false;
    out->errors[name] = n.get<uint64_t>();
  }
  return true;
}

}  // namespace iofab
