// Text from outside (file names, --label values, host names) may hold bytes
// that are not UTF-8; JSON, XML and HTML writers need valid UTF-8, so such
// bytes become U+FFFD, as nlohmann's error_handler_t::replace does in json_text.
#pragma once

#include <string>
#include <string_view>

namespace iofab {

// text with every byte that does not start or continue a valid UTF-8
// sequence (overlong forms, surrogates and code points past U+10FFFF
// included) replaced by U+FFFD; valid text comes back unchanged.
std::string valid_utf8(std::string_view text);

}  // namespace iofab
