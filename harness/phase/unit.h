// Unit: what a metric counts, and its one table (unit.cc): the text a report writes for it
// (details.units), how a check's threshold in it is parsed ("1GiB", "2GB/s", "180s", "90%"), and the
// example a suite error shows. A new unit is one enum case and one row; nothing else switches on it.
#pragma once

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace iofab {

// kOpsPerSecond: operations a second (a metadata rate: creates, stats), "ops/s" in the report.
enum class Unit { kBytes, kBytesPerSecond, kSeconds, kFraction, kCount, kRatio, kOpsPerSecond };

struct UnitRow {
  Unit unit;
  std::string_view text;     // in the report's details.units: "bytes/s"
  std::string_view example;  // for a suite error: "a rate like \"2GB/s\""
  // A threshold given as text ("2GB/s") in this unit, in base units; nullopt when it does not parse.
  std::optional<double> (*parse)(std::string_view text);
};

// Every unit, one row each, in the enum's order.
const UnitRow& unit_row(Unit unit);
// The row whose text is text ("bytes/s"); nullptr for none.
const UnitRow* find_unit(std::string_view text);

// A check's threshold: a JSON number as it is, a string parsed in unit; nullopt otherwise.
std::optional<double> parse_threshold(const nlohmann::json& v, Unit unit);

}  // namespace iofab
