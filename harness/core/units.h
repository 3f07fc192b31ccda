// Parsing and formatting of the units suite files and the CLI accept.
// Sizes: "4096", "4KiB", "1MiB", "2.5GB", "1TB", "64k" is NOT accepted
//   (ambiguous); binary suffixes KiB MiB GiB TiB PiB (2^10...), decimal
//   kB/KB MB GB TB PB (10^3...), B for bytes. Fractional values are allowed
//   only where the result is exactly a whole number of bytes ("2.5GB",
//   "1.5GiB", "1e9"); "0.3B" and "0.1KiB" are errors, not rounded, since a
//   size that silently changes is worse than a message.
// Rates: a size per second: "2GB/s", "500MiB/s", or a bare number (bytes/s);
//   a size without "/s" is not a rate.
// Durations: "500ms", "90s", "1.5min", "1h", "250us", "100ns", or a bare
//   number (seconds).
// Counts: "175e9", "1.5e6", "1000", optional K/M/B/T suffixes are NOT used
//   (ambiguous with bytes); scientific notation is the form.
// Fractions: "0.05", "5%".
// All parsers accept surrounding whitespace but no space between number and
// unit ("1 MB/s" is rejected), reject negatives, NaN, infinity and trailing
// junk, and return std::nullopt on any error; callers build the message.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace iofab::units {

std::optional<uint64_t> parse_size(std::string_view text);
std::optional<double> parse_rate(std::string_view text);      // bytes per second
std::optional<double> parse_duration(std::string_view text);  // seconds
std::optional<double> parse_count(std::string_view text);
std::optional<double> parse_fraction(std::string_view text);  // 0..1 not enforced

// People's units: GB/s (1e9), GiB (2^30), labelled; three significant digits
// (minutes: one decimal, as below); "n/a" for NaN or infinity.
std::string format_bytes(double bytes);        // "1.07 GB (1.00 GiB)" is too long: "1.00 GiB"
std::string format_rate(double bytes_per_s);   // "2.15 GB/s"
std::string format_duration(double seconds);   // "812 us", "1.25 s", "3.0 min", "1.00 h"

}  // namespace iofab::units
