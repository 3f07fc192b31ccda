#include "harness/core/utf8.h"

namespace iofab {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// A lead byte: the length of its sequence and the bounds of the second byte
// (RFC 3629; table 3-7 of Unicode). n == 0: not a lead byte.
struct Lead {
  size_t n;
  unsigned char lo, hi;
};

Lead lead_of(unsigned char c) {
  if (c >= 0xC2 && c <= 0xDF) return {2, 0x80, 0xBF};
  if (c == 0xE0) return {3, 0xA0, 0xBF};  // no overlong forms
  if (c == 0xED) return {3, 0x80, 0x9F};  // no surrogates
  if (c >= 0xE1 && c <= 0xEF) return {3, 0x80, 0xBF};
  if (c == 0xF0) return {4, 0x90, 0xBF};
  if (c >= 0xF1 && c <= 0xF3) return {4, 0x80, 0xBF};
  if (c == 0xF4) return {4, 0x80, 0x8F};  // nothing past U+10FFFF
  return {0, 0, 0};
}

// Length of the valid UTF-8 sequence at s[i], or 0.
size_t sequence_length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  if (b(i) < 0x80) return 1;
  const Lead l = lead_of(b(i));
  if (l.n == 0 || i + l.n > s.size() || b(i + 1) < l.lo || b(i + 1) > l.hi) return 0;
  for (size_t k = 2; k < l.n; ++k) {
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  }
  return l.n;
}

}  // namespace

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t n = sequence_length(text, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace iofab
