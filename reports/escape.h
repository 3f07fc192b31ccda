// Escaping of text that came from a report (hostnames, paths, phase and
// metric names, error messages): reports are read back from other machines,
// so nothing in them is trusted to be markup-free.
#pragma once

#include <string>
#include <string_view>

namespace iofab {

// For HTML, SVG and XML text and attribute values: & < > " ' become entities;
// control characters other than tab and newline (not allowed in XML 1.0) are dropped;
// bytes that are not UTF-8 become U+FFFD.
std::string xml_escape(std::string_view text);
// For one Markdown table cell: pipes, backslashes and the characters that
// start emphasis, code or links are backslash-escaped, < > & become entities
// (so no HTML gets through), newlines become spaces, and bytes that are not
// UTF-8 become U+FFFD.
std::string markdown_escape(std::string_view text);

}  // namespace iofab
