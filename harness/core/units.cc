#include "harness/core/units.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <system_error>
#include <utility>

namespace iofab::units {
namespace {

// A multiplier 10^pow10 * 2^pow2 * times. Powers of ten are folded into the decimal exponent, so "500ms" is
// rounded once (as 500e-3) rather than once in parsing and again in a multiplication by an inexact 1e-3.
struct Unit {
  std::string_view name;
  int pow10 = 0;
  int pow2 = 0;
  double times = 1;
};

constexpr Unit kSizeUnits[] = {
    {"", 0, 0},    {"B", 0, 0},    {"kB", 3, 0},   {"KB", 3, 0},   {"MB", 6, 0},   {"GB", 9, 0},
    {"TB", 12, 0}, {"PB", 15, 0},  {"KiB", 0, 10}, {"MiB", 0, 20}, {"GiB", 0, 30}, {"TiB", 0, 40},
    {"PiB", 0, 50},
};
constexpr Unit kDurationUnits[] = {
    {"", 0, 0},    {"s", 0, 0},       {"ms", -3, 0},     {"us", -6, 0},
    {"ns", -9, 0}, {"min", 0, 0, 60}, {"h", 0, 0, 3600},
};
constexpr Unit kCountUnits[] = {{"", 0, 0}};
constexpr Unit kFractionUnits[] = {{"", 0, 0}, {"%", -2, 0}};

// Exponents are saturated here while scanning: past it every value overflows or underflows anyway, and the
// cap keeps the exponent arithmetic far from int64 overflow.
constexpr int64_t kMaxExponent = 1'000'000'000;

// A non-negative number as written: digits * 10^exp10. Kept in decimal so a size can be checked for whole
// bytes exactly, with no binary rounding in the way ("0.1KB" is exactly 100 bytes).
struct Decimal {
  std::string digits;  // at least one digit; may have leading and trailing zeros
  int64_t exp10 = 0;
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Scans digits[.digits][(e|E)[+|-]digits] at the start of text and leaves the rest in *suffix. A sign,
// "inf", "nan" or hex never scan, which is how negatives and non-finite values are rejected; an 'e' with no
// digits after it is left in the suffix, where no unit matches it.
std::optional<Decimal> scan_number(std::string_view text, std::string_view* suffix) {
  Decimal d;
  size_t i = 0;
  size_t frac_digits = 0;
  while (i < text.size() && is_digit(text[i])) d.digits += text[i++];
  if (i < text.size() && text[i] == '.') {
    ++i;
    for (; i < text.size() && is_digit(text[i]); ++i, ++frac_digits) d.digits += text[i];
  }
  if (d.digits.empty()) return std::nullopt;
  int64_t exp = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    size_t j = i + 1;
    bool negative = false;
    if (j < text.size() && (text[j] == '+' || text[j] == '-')) negative = text[j++] == '-';
    if (j < text.size() && is_digit(text[j])) {
      for (; j < text.size() && is_digit(text[j]); ++j) {
        exp = std::min(exp * 10 + (text[j] - '0'), kMaxExponent);
      }
      if (negative) exp = -exp;
      i = j;
    }
  }
  d.exp10 = exp - static_cast<int64_t>(frac_digits);
  *suffix = text.substr(i);
  return d;
}

// Splits text into a number and one of units; nullopt when either part does not match. Callers trim first,
// and only once: "2GB /s" must not become "2GB" when the "/s" is cut off.
std::optional<std::pair<Decimal, Unit>> split(std::string_view text, std::span<const Unit> units) {
  std::string_view suffix;
  std::optional<Decimal> d = scan_number(text, &suffix);
  if (!d) return std::nullopt;
  for (const Unit& u : units) {
    if (u.name == suffix) return std::make_pair(std::move(*d), u);
  }
  return std::nullopt;
}

// d scaled by u, rounded once by from_chars (locale independent) for the power of ten; the power of two is
// exact and `times` (60, 3600) adds at most one more rounding. nullopt when the result is not a finite,
// representable number, including a non-zero value that underflows to zero.
std::optional<double> to_double(const Decimal& d, const Unit& u) {
  std::string text = d.digits;
  text += 'e';
  text += std::to_string(d.exp10 + u.pow10);
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  const bool nonzero = d.digits.find_first_not_of('0') != std::string::npos;
  value = std::ldexp(value, u.pow2) * u.times;
  if (!std::isfinite(value) || (nonzero && value == 0)) return std::nullopt;
  return value;
}

// Divides a decimal digit string by 5 in place; false (and *digits unspecified) when there is a remainder.
bool divide_by_5(std::string* digits) {
  int carry = 0;
  for (char& c : *digits) {
    const int cur = carry * 10 + (c - '0');
    c = static_cast<char>('0' + cur / 5);
    carry = cur % 5;
  }
  digits->erase(0, std::min(digits->find_first_not_of('0'), digits->size()));
  return carry == 0;
}

// d scaled by u as an exact whole number of bytes, or nullopt when it is not whole or exceeds uint64.
std::optional<uint64_t> to_whole_bytes(const Decimal& d, const Unit& u) {
  std::string digits = d.digits;
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  if (digits.empty()) return 0;
  int64_t exp10 = d.exp10 + u.pow10;
  int pow2 = u.pow2;
  const size_t last = digits.find_last_not_of('0');
  exp10 += static_cast<int64_t>(digits.size() - 1 - last);
  digits.resize(last + 1);
  if (exp10 < 0) {
    // The digits no longer end in 0, so digits * 2^pow2 / 10^n is whole only when 5^n divides the digits
    // (then they are odd) and n <= pow2. "1.5GiB" is 15 / 5 * 2^29.
    if (-exp10 > pow2) return std::nullopt;
    for (int64_t n = -exp10; n > 0; --n) {
      if (!divide_by_5(&digits)) return std::nullopt;
    }
    pow2 += static_cast<int>(exp10);
    exp10 = 0;
  }
  uint64_t value = 0;
  for (char c : digits) {
    if (__builtin_mul_overflow(value, 10u, &value) || __builtin_add_overflow(value, c - '0', &value)) {
      return std::nullopt;
    }
  }
  // value >= 1 here, so an absurd exponent overflows within 20 rounds.
  for (int64_t i = 0; i < exp10; ++i) {
    if (__builtin_mul_overflow(value, 10u, &value)) return std::nullopt;
  }
  if (value > (UINT64_MAX >> pow2)) return std::nullopt;
  return value << pow2;
}

std::optional<double> parse_double(std::string_view text, std::span<const Unit> units) {
  auto parts = split(text, units);
  if (!parts) return std::nullopt;
  return to_double(parts->first, parts->second);
}

// v rounded to three significant digits; used to pick a unit by what will be printed, so 999.7 us becomes
// "1.00 ms" rather than "1000 us".
double round_sig3(double v) {
  if (v <= 0) return v;
  const double scale = std::pow(10.0, 2 - static_cast<int>(std::floor(std::log10(v))));
  if (!std::isfinite(scale) || !std::isfinite(v * scale)) return v;
  return std::round(v * scale) / scale;
}

std::string fixed(double v, int precision) {
  // Wide enough for any double in fixed notation (309 integer digits, or ~330 decimals for a denormal).
  char buf[512];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, precision);
  if (ec != std::errc()) return "n/a";
  return std::string(buf, ptr);
}

// Three significant digits: "2.15", "21.5", "215", "0.00215"; values of 1000 and up keep every integer digit.
std::string sig3(double v) {
  if (v == 0) return "0";
  const double r = round_sig3(v);
  return fixed(v, std::max(0, 2 - static_cast<int>(std::floor(std::log10(r)))));
}

// v in the first unit of names where it reads below 1000 (stepping by `step`), or the last unit.
std::string scaled(double v, double step, std::initializer_list<const char*> names) {
  const char* const* name = names.begin();
  while (name + 1 != names.end() && round_sig3(v) >= 1000) {
    v /= step;
    ++name;
  }
  return sig3(v) + " " + *name;
}

}  // namespace

std::optional<uint64_t> parse_size(std::string_view text) {
  auto parts = split(trim(text), kSizeUnits);
  if (!parts) return std::nullopt;
  return to_whole_bytes(parts->first, parts->second);
}

std::optional<double> parse_rate(std::string_view text) {
  // A bare number is bytes per second; with a unit, "/s" is required so that a size is not taken for a rate.
  const std::span<const Unit> units(kSizeUnits);
  text = trim(text);
  if (!text.ends_with("/s")) return parse_double(text, units.first(1));
  text.remove_suffix(2);
  return parse_double(text, units.subspan(1));
}

std::optional<double> parse_duration(std::string_view text) {
  return parse_double(trim(text), kDurationUnits);
}

std::optional<double> parse_count(std::string_view text) {
  return parse_double(trim(text), kCountUnits);
}

std::optional<double> parse_fraction(std::string_view text) {
  return parse_double(trim(text), kFractionUnits);
}

std::string format_bytes(double bytes) {
  if (!std::isfinite(bytes)) return "n/a";
  if (bytes < 0) return "-" + format_bytes(-bytes);
  // Whole byte counts read best as integers: "5 B", not "5.00 B".
  if (bytes < 1000 && bytes == std::floor(bytes)) return fixed(bytes, 0) + " B";
  return scaled(bytes, 1024, {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"});
}

std::string format_rate(double bytes_per_s) {
  if (!std::isfinite(bytes_per_s)) return "n/a";
  if (bytes_per_s < 0) return "-" + format_rate(-bytes_per_s);
  if (bytes_per_s == 0) return "0 B/s";
  return scaled(bytes_per_s, 1000, {"B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s", "EB/s"});
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds)) return "n/a";
  if (seconds < 0) return "-" + format_duration(-seconds);
  if (seconds == 0) return "0 s";
  if (round_sig3(seconds) < 60) return scaled(seconds * 1e9, 1000, {"ns", "us", "ms", "s"});
  // Minutes take one decimal ("3.0 min"): a tenth is 6 s, as fine as anyone reads a minutes figure.
  const double minutes = seconds / 60;
  if (std::round(minutes * 10) < 600) return fixed(minutes, 1) + " min";
  return sig3(seconds / 3600) + " h";
}

}  // namespace iofab::units
