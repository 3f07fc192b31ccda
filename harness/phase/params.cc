#include "harness/phase/params.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <utility>

#include "harness/core/json_text.h"
#include "harness/core/units.h"
#include "harness/core/whole_number.h"

namespace iofab {

using nlohmann::json;

std::string describe_json_value(const json& v) {
  std::string s = json_text(v);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

std::vector<std::string> name_list(const json& v) {
  std::vector<std::string> words;
  if (v.is_string()) {
    std::stringstream ss(v.get<std::string>());
    for (std::string w; std::getline(ss, w, ',');) words.push_back(w);
  } else if (v.is_array()) {
    for (const auto& x : v) words.push_back(x.is_string() ? x.get<std::string>() : x.dump());
  }
  return words;
}

ParamReader::ParamReader(const json& obj, std::string path, const json* defaults)
    : obj_(obj), path_(std::move(path)), defaults_(defaults) {}

const json* ParamReader::lookup(std::string_view key) {
  known_.emplace(key);
  if (obj_.is_object()) {
    auto it = obj_.find(key);
    if (it != obj_.end()) return &*it;
  }
  if (defaults_ != nullptr && defaults_->is_object()) {
    auto it = defaults_->find(key);
    if (it != defaults_->end()) return &*it;
  }
  return nullptr;
}

std::string ParamReader::path_of(std::string_view key) const {
  bool in_phase = obj_.is_object() && obj_.contains(key);
  if (!in_phase && defaults_ != nullptr && defaults_->is_object() && defaults_->contains(key)) {
    return "defaults." + std::string(key);
  }
  return path_ + "." + std::string(key);
}

void ParamReader::bad(std::string_view key, std::string_view expected, const json& got) {
  errors_.push_back(path_of(key) + ": expected " + std::string(expected) + ", got " + describe_json_value(got));
}

void ParamReader::fail(std::string_view key, std::string_view message) {
  errors_.push_back(path_of(key) + ": " + std::string(message));
}

void ParamReader::fail_at_path(std::string message) { errors_.push_back(std::move(message)); }

static std::string range_text(double min, double max) {
  auto fmt = [](double x) {
    json j = x;
    if (std::floor(x) == x && std::fabs(x) < 9e15) j = static_cast<int64_t>(x);
    return j.dump();
  };
  if (max >= 9.2e18) return ">= " + fmt(min);
  return "in [" + fmt(min) + ", " + fmt(max) + "]";
}

template <class T>
struct ParamReader::Unit {
  std::optional<T> (*read)(const json& v);  // the value in base units; nullopt when not of the unit's form
  const char* form;                         // the expected form, with examples
  std::string (*range)(T min, T max);       // the expected form when out of [min, max]
};

template <class T>
T ParamReader::quantity(std::string_view key, T def, T min, T max, const Unit<T>& unit) {
  const json* v = lookup(key);
  T out = def;
  if (v != nullptr) {
    const std::optional<T> parsed = unit.read(*v);
    if (!parsed) {
      bad(key, unit.form, *v);
    } else if (*parsed < min || *parsed > max) {
      bad(key, unit.range(min, max), *v);
    } else {
      out = *parsed;
    }
  }
  resolved_[std::string(key)] = out;
  return out;
}

namespace {

// A JSON number as is, or a string read by parse (a number with its unit).
std::optional<double> number_or_text(const json& v, std::optional<double> (*parse)(std::string_view)) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) return parse(v.get<std::string>());
  return std::nullopt;
}

std::optional<double> finite(std::optional<double> x) { return x && std::isfinite(*x) ? x : std::nullopt; }

std::optional<double> finite_non_negative(std::optional<double> x) {
  return x && std::isfinite(*x) && *x >= 0 ? x : std::nullopt;
}

// A byte count: a whole JSON number >= 0, or a string with a unit.
std::optional<uint64_t> read_size(const json& v) {
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return v.get<uint64_t>();
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d >= 0 && d < 1.8e19 && std::floor(d) == d) return static_cast<uint64_t>(d);
    return std::nullopt;
  }
  if (v.is_string()) return units::parse_size(v.get<std::string>());
  return std::nullopt;
}

std::string size_range_text(uint64_t min, uint64_t max) {
  return "a size from " + std::to_string(min) + " to " + std::to_string(max) + " bytes (" +
         units::format_bytes(static_cast<double>(max)) + ")";
}

}  // namespace

uint64_t ParamReader::size(std::string_view key, uint64_t def, uint64_t min, uint64_t max) {
  static const Unit<uint64_t> kSize{read_size, "a size like \"1MiB\" or \"4KiB\"", size_range_text};
  return quantity(key, def, min, std::min(max, kMaxSizeBytes), kSize);
}

double ParamReader::duration(std::string_view key, double def, double min, double max) {
  static const Unit<double> kDuration{
      [](const json& v) { return finite_non_negative(number_or_text(v, units::parse_duration)); },
      "a duration like \"500ms\", \"90s\" or \"1h\"",
      [](double lo, double hi) { return "a duration " + range_text(lo, hi) + " seconds"; }};
  return quantity(key, def, min, max, kDuration);
}

double ParamReader::rate(std::string_view key, double def) {
  // Any finite rate >= 0 is in range, so the range text is never shown.
  static const Unit<double> kRate{
      [](const json& v) { return finite_non_negative(number_or_text(v, units::parse_rate)); },
      "a rate like \"2GB/s\"", [](double lo, double hi) { return "a rate " + range_text(lo, hi); }};
  return quantity(key, def, 0.0, std::numeric_limits<double>::max(), kRate);
}

double ParamReader::count(std::string_view key, double def, double min, double max) {
  static const Unit<double> kCount{
      [](const json& v) { return finite(number_or_text(v, units::parse_count)); }, "a count like 175e9",
      [](double lo, double hi) { return "a count " + range_text(lo, hi); }};
  return quantity(key, def, min, max, kCount);
}

double ParamReader::fraction(std::string_view key, double def, double min, double max) {
  static const Unit<double> kFraction{
      [](const json& v) { return finite(number_or_text(v, units::parse_fraction)); },
      "a fraction like 0.05 or \"5%\"",
      [](double lo, double hi) { return "a fraction " + range_text(lo, hi); }};
  return quantity(key, def, min, max, kFraction);
}

int64_t ParamReader::integer(std::string_view key, int64_t def, int64_t min, int64_t max) {
  const json* v = lookup(key);
  int64_t out = def;
  if (v != nullptr) {
    // 1e3 and 2.0 are integers in JSON's notation too; 2.5 and "8" are not.
    const std::optional<int64_t> n = whole_number(*v);
    if (!n || *n < min || *n > max) {
      bad(key, "an integer " + range_text(static_cast<double>(min), static_cast<double>(max)), *v);
    } else {
      out = *n;
    }
  }
  resolved_[std::string(key)] = out;
  return out;
}

bool ParamReader::boolean(std::string_view key, bool def) {
  const json* v = lookup(key);
  bool out = def;
  if (v != nullptr) {
    if (!v->is_boolean()) {
      bad(key, "true or false", *v);
    } else {
      out = v->get<bool>();
    }
  }
  resolved_[std::string(key)] = out;
  return out;
}

std::string ParamReader::choice(std::string_view key, std::string def,
                                std::initializer_list<std::string_view> allowed) {
  return choice(
      key, std::move(def),
      [&](std::string_view name) { return std::find(allowed.begin(), allowed.end(), name) != allowed.end(); },
      [&] { return std::vector<std::string>(allowed.begin(), allowed.end()); });
}

std::string ParamReader::choice(std::string_view key, std::string def,
                                const std::function<bool(std::string_view)>& known,
                                const std::function<std::vector<std::string>()>& names) {
  const json* v = lookup(key);
  std::string out = std::move(def);
  if (v != nullptr) {
    if (!v->is_string() || !known(v->get<std::string>())) {
      std::string expected = "one of";
      for (const std::string& name : names()) expected += " \"" + name + "\"";
      bad(key, expected, *v);
    } else {
      out = v->get<std::string>();
    }
  }
  resolved_[std::string(key)] = out;
  return out;
}

std::string ParamReader::string(std::string_view key, std::string def) {
  const json* v = lookup(key);
  std::string out = std::move(def);
  if (v != nullptr) {
    if (!v->is_string()) {
      bad(key, "a string", *v);
    } else {
      out = v->get<std::string>();
    }
  }
  resolved_[std::string(key)] = out;
  return out;
}

const json* ParamReader::raw(std::string_view key) {
  const json* v = lookup(key);
  if (v != nullptr) resolved_[std::string(key)] = *v;
  return v;
}

Status ParamReader::finish(const std::set<std::string, std::less<>>& ignore) {
  if (obj_.is_object()) {
    for (const auto& [key, value] : obj_.items()) {
      if (known_.count(key) == 0 && ignore.count(key) == 0) {
        std::string msg = path_ + "." + key + ": unknown parameter; expected one of:";
        for (const auto& k : known_) msg += " " + k;
        errors_.push_back(msg);
      }
    }
  }
  if (errors_.empty()) return Status::Ok();
  std::string all;
  for (const auto& e : errors_) {
    if (!all.empty()) all += "\n";
    all += e;
  }
  return Status::Invalid(all);
}

}  // namespace iofab
