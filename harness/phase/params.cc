#include "harness/phase/params.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "harness/core/json_text.h"
#include "harness/core/units.h"

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

uint64_t ParamReader::size(std::string_view key, uint64_t def, uint64_t min, uint64_t max) {
  const json* v = lookup(key);
  uint64_t out = def;
  if (v != nullptr) {
    std::optional<uint64_t> parsed;
    if (v->is_number_integer() && v->get<int64_t>() >= 0) {
      parsed = v->get<uint64_t>();
    } else if (v->is_number_unsigned()) {
      parsed = v->get<uint64_t>();
    } else if (v->is_number_float()) {
      const double d = v->get<double>();
      if (std::isfinite(d) && d >= 0 && d < 1.8e19 && std::floor(d) == d) parsed = static_cast<uint64_t>(d);
    } else if (v->is_string()) {
      parsed = units::parse_size(v->get<std::string>());
    }
    if (!parsed) {
      bad(key, "a size like \"1MiB\" or \"4KiB\"", *v);
      resolved_[std::string(key)] = def;
      return def;
    }
    max = std::min(max, kMaxSizeBytes);
    if (*parsed < min || *parsed > max) {
      const std::string range = "a size from " + std::to_string(min) + " to " + std::to_string(max) + " bytes (" +
                                units::format_bytes(static_cast<double>(max)) + ")";
      bad(key, range, *v);
      resolved_[std::string(key)] = def;
      return def;
    }
    out = *parsed;
  }
  resolved_[std::string(key)] = out;
  return out;
}

static std::string range_text(double min, double max) {
  auto fmt = [](double x) {
    json j = x;
    if (std::floor(x) == x && std::fabs(x) < 9e15) j = static_cast<int64_t>(x);
    return j.dump();
  };
  if (max >= 9.2e18) return ">= " + fmt(min);
  return "in [" + fmt(min) + ", " + fmt(max) + "]";
}

double ParamReader::duration(std::string_view key, double def, double min, double max) {
  const json* v = lookup(key);
  double out = def;
  if (v != nullptr) {
    std::optional<double> parsed;
    if (v->is_number()) {
      parsed = v->get<double>();
    } else if (v->is_string()) {
      parsed = units::parse_duration(v->get<std::string>());
    }
    if (!parsed || !std::isfinite(*parsed) || *parsed < 0) {
      bad(key, "a duration like \"500ms\", \"90s\" or \"1h\"", *v);
    } else if (*parsed < min || *parsed > max) {
      bad(key, "a duration " + range_text(min, max) + " seconds", *v);
    } else {
      out = *parsed;
    }
  }
  resolved_[std::string(key)] = out;
  return out;
}

double ParamReader::rate(std::string_view key, double def) {
  const json* v = lookup(key);
  double out = def;
  if (v != nullptr) {
    std::optional<double> parsed;
    if (v->is_number()) {
      parsed = v->get<double>();
    } else if (v->is_string()) {
      parsed = units::parse_rate(v->get<std::string>());
    }
    if (!parsed || !std::isfinite(*parsed) || *parsed < 0) {
      bad(key, "a rate like \"2GB/s\"", *v);
    } else {
      out = *parsed;
    }
  }
  resolved_[std::string(key)] = out;
  return out;
}

double ParamReader::count(std::string_view key, double def, double min, double max) {
  const json* v = lookup(key);
  double out = def;
  if (v != nullptr) {
    std::optional<double> parsed;
    if (v->is_number()) {
      parsed = v->get<double>();
    } else if (v->is_string()) {
      parsed = units::parse_count(v->get<std::string>());
    }
    if (!parsed || !std::isfinite(*parsed)) {
      bad(key, "a count like 175e9", *v);
    } else if (*parsed < min || *parsed > max) {
      bad(key, "a count " + range_text(min, max), *v);
    } else {
      out = *parsed;
    }
  }
  resolved_[std::string(key)] = out;
  return out;
}

double ParamReader::fraction(std::string_view key, double def, double min, double max) {
  const json* v = lookup(key);
  double out = def;
  if (v != nullptr) {
    std::optional<double> parsed;
    if (v->is_number()) {
      parsed = v->get<double>();
    } else if (v->is_string()) {
      parsed = units::parse_fraction(v->get<std::string>());
    }
    if (!parsed || !std::isfinite(*parsed)) {
      bad(key, "a fraction like 0.05 or \"5%\"", *v);
    } else if (*parsed < min || *parsed > max) {
      bad(key, "a fraction " + range_text(min, max), *v);
    } else {
      out = *parsed;
    }
  }
  resolved_[std::string(key)] = out;
  return out;
}

int64_t ParamReader::integer(std::string_view key, int64_t def, int64_t min, int64_t max) {
  const json* v = lookup(key);
  int64_t out = def;
  if (v != nullptr) {
    if (!v->is_number_integer()) {
      bad(key, "an integer " + range_text(static_cast<double>(min), static_cast<double>(max)), *v);
    } else if (v->get<int64_t>() < min || v->get<int64_t>() > max ||
               (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(max))) {
      bad(key, "an integer " + range_text(static_cast<double>(min), static_cast<double>(max)), *v);
    } else {
      out = v->get<int64_t>();
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
  const json* v = lookup(key);
  std::string out = std::move(def);
  if (v != nullptr) {
    bool ok = false;
    if (v->is_string()) {
      for (auto a : allowed) ok = ok || a == v->get<std::string>();
    }
    if (!ok) {
      std::string expected = "one of";
      for (auto a : allowed) expected += " \"" + std::string(a) + "\"";
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
