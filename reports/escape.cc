#include "reports/escape.h"

#include "harness/core/utf8.h"

namespace iofab {
namespace {

// The entity for a character markup would read as its own; null for any other.
const char* entity(char ch) {
  switch (ch) {
    case '&':
      return "&amp;";
    case '<':
      return "&lt;";
    case '>':
      return "&gt;";
    case '"':
      return "&quot;";
    case '\'':
      return "&#39;";
    default:
      return nullptr;
  }
}

bool is_control(char ch) {
  const auto c = static_cast<unsigned char>(ch);
  return c < 0x20 || c == 0x7f;
}

}  // namespace

std::string xml_escape(std::string_view raw) {
  // Bytes that are not UTF-8 (a file name from another locale) would make the XML not well-formed.
  const std::string text = valid_utf8(raw);
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char ch : text) {
    if (const char* e = entity(ch)) {
      out += e;
    } else if (!is_control(ch) || ch == '\t' || ch == '\n') {
      out += ch;
    }
  }
  return out;
}

std::string markdown_escape(std::string_view raw) {
  // Characters that start emphasis, code, links or a new cell.
  constexpr std::string_view kMarkdownSyntax = "|\\`*_[]#~";
  const std::string text = valid_utf8(raw);
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char ch : text) {
    if (ch == '"' || ch == '\'') {
      out += ch;  // plain text in a cell: no entity, so a name reads as it is
    } else if (const char* e = entity(ch)) {
      out += e;
    } else if (ch == '\n' || ch == '\r' || ch == '\t') {
      out += ' ';
    } else if (kMarkdownSyntax.find(ch) != std::string_view::npos) {
      out += '\\';
      out += ch;
    } else if (!is_control(ch)) {
      out += ch;
    }
  }
  return out;
}

}  // namespace iofab
