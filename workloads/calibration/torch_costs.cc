#include "workloads/calibration/torch_costs.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace iofab {
namespace {

using nlohmann::json;

std::string_view item_key_of(std::string_view section) {
  return section == kSafetensorsSection ? "tensor_s" : "record_s";
}

Status read_number(const json& j, std::string_view key, const std::string& where, const std::string& source,
                   double* out) {
  const auto it = j.is_object() ? j.find(std::string(key)) : j.end();
  if (!j.is_object() || it == j.end() || !it->is_number() || !std::isfinite(it->get<double>()) ||
      it->get<double>() < 0) {
    return Status::Invalid("calibration file " + source + ": " + where + "." + std::string(key) +
                           ": expected a number >= 0 (CPU seconds)" +
                           (!j.is_object() || it == j.end() ? " (it is missing)" : ", got " + it->dump()));
  }
  *out = it->get<double>();
  return Status::Ok();
}

Status read_item_costs(const json& section, const char* side, std::string_view item_key,
                       const std::string& where, const std::string& source, ItemCosts* out) {
  const json j = section.contains(side) ? section[side] : json();
  const std::string at = where + "." + side;
  Status s = read_number(j, item_key, at, source, &out->per_item_s);
  if (s.ok()) s = read_number(j, "byte_s", at, source, &out->per_byte_s);
  return s;
}

}  // namespace

void spin_cpu(double seconds) {
  if (!(seconds > 0)) return;
  const auto cpu = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  };
  const double end = cpu() + seconds;
  volatile uint64_t sink = 0;
  while (cpu() < end) {
    for (int i = 0; i < 256; ++i) sink = sink + static_cast<uint64_t>(i);
  }
}

ItemCosts TorchCosts::spin() const {
  return {.per_item_s = std::max(0.0, python.per_item_s - native.per_item_s),
          .per_byte_s = std::max(0.0, python.per_byte_s - native.per_byte_s)};
}

json TorchCosts::to_json(std::string_view item_key) const {
  const auto side = [&](const ItemCosts& c) {
    return json{{std::string(item_key), c.per_item_s}, {"byte_s", c.per_byte_s}};
  };
  return {{"python", side(python)}, {"native", side(native)}, {"spin", side(spin())}};
}

TorchCosts builtin_torch_save_costs() {
  // torch_save_probe.py on the project's 2-core VM, Debian python3-torch 1.13.1: torch.save of a bare
  // bf16 tensor into /dev/null, 64 B to 8 MiB (pickling and zip framing per record, crc32 per byte);
  // native: a clone of the same bytes.
  return {.python = {.per_item_s = 31.6e-6, .per_byte_s = 0.264e-9},
          .native = {.per_item_s = 0, .per_byte_s = 0.034e-9}};
}

TorchCosts builtin_safetensors_costs() {
  // The same probe: storage slice, asarray, view, reshape and clone per tensor of a mapped file in the
  // page cache; native: a clone of the same bytes.
  return {.python = {.per_item_s = 5.8e-6, .per_byte_s = 0.063e-9},
          .native = {.per_item_s = 0, .per_byte_s = 0.037e-9}};
}

Status torch_costs(const Calibration& c, std::string_view section, TorchCosts* out, bool* from_file) {
  const json* s = c.section(section);
  *from_file = s != nullptr;
  if (s == nullptr) {
    *out = section == kSafetensorsSection ? builtin_safetensors_costs() : builtin_torch_save_costs();
    return Status::Ok();
  }
  const std::string where = "sections." + std::string(section);
  TorchCosts t;
  Status st = read_item_costs(*s, "python", item_key_of(section), where, c.source, &t.python);
  if (st.ok()) st = read_item_costs(*s, "native", item_key_of(section), where, c.source, &t.native);
  if (st.ok()) *out = t;
  return st;
}

}  // namespace iofab
