// JSON to text that never throws: strings from outside (paths, --set values,
// host names) may hold bytes that are not UTF-8, and nlohmann::json::dump
// throws on those by default. Such bytes become U+FFFD instead.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace iofab {

inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

inline bool is_utf8(const std::string& s) {
  try {
    (void)nlohmann::json(s).dump();
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

}  // namespace iofab
