#include "workloads/metadata/metadata_tally.h"

#include <algorithm>
#include <cstring>

#include "harness/comm/wire.h"

namespace iofab {

void MdStonewall::merge(const MdStonewall& other) {
  if (!other.ran) return;
  items_min = ran ? std::min(items_min, other.items_min) : other.items_min;
  ran = true;
  fired = fired || other.fired;
  items_sum += other.items_sum;
  items_max = std::max(items_max, other.items_max);
  ns = std::max(ns, other.ns);
  wear_out_to = std::max(wear_out_to, other.wear_out_to);
}

void MdTally::merge(const MdTally& other) {
  stonewall.merge(other.stonewall);
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
  const MdStonewall& w = stonewall;
  return {{"ops", ops},
          {"ns", ns},
          {"latency", latency.to_wire()},
          {"errors", e},
          {"first_error", first_error},
          {"stonewall",
           {{"ran", w.ran},
            {"fired", w.fired},
            {"items_sum", w.items_sum},
            {"items_min", w.items_min},
            {"items_max", w.items_max},
            {"ns", w.ns},
            {"wear_out_to", w.wear_out_to}}}};
}

bool MdTally::from_json(const nlohmann::json& j, MdTally* out) {
  nlohmann::json errors;
  WireReader r(j);
  r.field("ops", &out->ops).field("ns", &out->ns).field("latency", &out->latency);
  r.field("errors", &errors).field("first_error", &out->first_error);
  if (!r.status().ok() || !errors.is_object() || !j.contains("stonewall")) return false;
  MdStonewall& w = out->stonewall;
  WireReader sw(j["stonewall"]);
  sw.field("ran", &w.ran).field("fired", &w.fired).field("items_sum", &w.items_sum);
  sw.field("items_min", &w.items_min).field("items_max", &w.items_max).field("ns", &w.ns);
  sw.field("wear_out_to", &w.wear_out_to);
  if (!sw.status().ok()) return false;
  for (const auto& [name, n] : errors.items()) {
    if (!n.is_number_unsigned()) return false;
    out->errors[name] = n.get<uint64_t>();
  }
  return true;
}

}  // namespace iofab
