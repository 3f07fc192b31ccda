// Small string helpers every layer uses.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace iofab {

// The parts with sep between them: join({"a", "b"}, ", ") is "a, b"; no parts: "".
std::string join(const std::vector<std::string>& parts, std::string_view sep);

inline bool ends_with(std::string_view s, std::string_view suffix) { return s.ends_with(suffix); }

}  // namespace iofab
