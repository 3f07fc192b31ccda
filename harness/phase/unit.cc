#include "harness/phase/unit.h"

#include <array>
#include <string>

#include "harness/core/units.h"

namespace iofab {

namespace {

std::optional<double> parse_bytes(std::string_view text) {
  const auto b = units::parse_size(text);
  return b ? std::optional<double>(static_cast<double>(*b)) : std::nullopt;
}

// Indexed by the enum: unit_row checks that each row sits at its case.
constexpr std::array<UnitRow, 7> kUnits = {{
    {.unit = Unit::kBytes, .text = "bytes", .example = "a size like \"1GiB\"", .parse = &parse_bytes},
    {.unit = Unit::kBytesPerSecond,
     .text = "bytes/s",
     .example = "a rate like \"2GB/s\"",
     .parse = &units::parse_rate},
    {.unit = Unit::kSeconds,
     .text = "s",
     .example = "a duration like \"180s\"",
     .parse = &units::parse_duration},
    {.unit = Unit::kFraction,
     .text = "fraction",
     .example = "a fraction like 0.9 or \"90%\"",
     .parse = &units::parse_fraction},
    {.unit = Unit::kCount, .text = "count", .example = "a number like 1000", .parse = &units::parse_count},
    {.unit = Unit::kRatio, .text = "ratio", .example = "a number like 1.5", .parse = &units::parse_count},
    {.unit = Unit::kOpsPerSecond,
     .text = "ops/s",
     .example = "operations a second like 1e5",
     .parse = &units::parse_count},
}};

constexpr bool rows_in_enum_order() {
  for (size_t i = 0; i < kUnits.size(); ++i) {
    if (static_cast<size_t>(kUnits[i].unit) != i) return false;
  }
  return true;
}
static_assert(rows_in_enum_order(), "kUnits: one row per Unit, in the enum's order");

}  // namespace

const UnitRow& unit_row(Unit unit) { return kUnits[static_cast<size_t>(unit)]; }

const UnitRow* find_unit(std::string_view text) {
  for (const UnitRow& r : kUnits) {
    if (r.text == text) return &r;
  }
  return nullptr;
}

std::optional<double> parse_threshold(const nlohmann::json& v, Unit unit) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return std::nullopt;
  return unit_row(unit).parse(v.get<std::string>());
}

}  // namespace iofab
