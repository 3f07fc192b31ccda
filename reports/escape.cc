#include "reports/escape.h"

#include "harness/core/utf8.h"

namespace iofab {

std::string xml_escape(std::string_view raw) {
  // Bytes that are not UTF-8 (a file name from another locale) would make the XML not well-formed.
  const std::string text = valid_utf8(raw);
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (c < 0x20 && ch != '\t' && ch != '\n') break;
        if (c == 0x7f) break;
        out += ch;
    }
  }
  return out;
}

std::string markdown_escape(std::string_view raw) {
  const std::string text = valid_utf8(raw);
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '\n':
      case '\r':
      case '\t':
        out += ' ';
        break;
      case '|':
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '#':
      case '~':
        out += '\\';
        out += ch;
        break;
      default:
        if (c < 0x20 || c == 0x7f) break;
        out += ch;
    }
  }
  return out;
}

}  // namespace iofab
