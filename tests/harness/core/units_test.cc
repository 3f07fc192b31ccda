#include "harness/core/units.h"

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <utility>

#include <gtest/gtest.h>

namespace iofab::units {
namespace {

// Every text parses to its value.
template <typename T = double, typename Parse>
void expect_parsed(Parse parse, std::initializer_list<std::pair<const char*, T>> cases) {
  for (const auto& [text, want] : cases) EXPECT_EQ(parse(text), want) << "'" << text << "'";
}

// No text parses.
template <typename Parse>
void expect_refused(Parse parse, std::initializer_list<const char*> texts) {
  for (const char* text : texts) EXPECT_EQ(parse(text), std::nullopt) << "'" << text << "'";
}

TEST(UnitsParseSize, AcceptsEveryForm) {
  // "0.1KB" is exact in decimal though 0.1 is not a double; 2^30 / 10^30 * 5^30 = 1.
  expect_parsed<uint64_t>(parse_size, {{"4096", 4096u}, {"4KiB", 4096u}, {"1MiB", 1048576u},
                                       {"1GiB", 1073741824u}, {"1.5GiB", 1610612736u},
                                       {"2TiB", 2199023255552u}, {"1PiB", uint64_t{1} << 50},
                                       {"2.5GB", 2500000000u}, {"1TB", 1000000000000u}, {"1kB", 1000u},
                                       {"1KB", 1000u}, {"3MB", 3000000u}, {"2PB", 2000000000000000u},
                                       {"512B", 512u}, {"0", 0u}, {"0.0B", 0u}, {"1e9", 1000000000u},
                                       {"0.5KiB", 512u}, {"0.1KB", 100u}, {"2.50GB", 2500000000u},
                                       {"004KiB", 4096u}, {" \t4KiB\n", 4096u},
                                       {"18446744073709551615", UINT64_MAX},
                                       {"0.000000000931322574615478515625GiB", 1u}});
}

TEST(UnitsParseSize, Rejects) {
  expect_refused(parse_size, {"1 MB/s", "1MB/s", "1 MB", "4 KiB", "-1", "-0", "+1", "abc", "", "   ", "nan",
                              "inf", "infinity", "1e400", "4KiBx", "4KiB 4", "0.3B", "1.5", "0.1KiB",
                              "1.0000000001KB", "64k", "64K", "4kib", "4kb", "1e", "1e+", ".", "0x10", "1..5",
                              "1.5.5", "18446744073709551616", "16384PiB", "1e20", "KiB"});
}

TEST(UnitsParseRate, AcceptsEveryForm) {
  expect_parsed(parse_rate, {{"2GB/s", 2e9}, {"500MiB/s", 524288000.0}, {"1.5GiB/s", 1610612736.0},
                             {"0.1GB/s", 1e8}, {"25kB/s", 25000.0}, {"1B/s", 1.0}, {"100", 100.0},
                             {"1.5e9", 1.5e9}, {" 2GB/s ", 2e9}});
}

TEST(UnitsParseRate, Rejects) {
  expect_refused(parse_rate, {"1 MB/s", "2GB /s", "2GB/ s", "2GB", "/s", "5/s", "-1GB/s", "nanGB/s", "infGB/s",
                              "1e400", "1e400GB/s", "2Gb/s", "2GB/h", "2GB/s/s", "", "abc"});
}

TEST(UnitsParseDuration, AcceptsEveryForm) {
  expect_parsed(parse_duration, {{"500ms", 0.5}, {"90s", 90.0}, {"1.5min", 90.0}, {"1h", 3600.0},
                                 {"0.5h", 1800.0}, {"250us", 250e-6}, {"100ns", 100e-9}, {"2", 2.0},
                                 {"0.25", 0.25}, {"0s", 0.0}});
}

TEST(UnitsParseDuration, Rejects) {
  expect_refused(parse_duration, {"5 s", "-1s", "1d", "1m", "1sec", "1S", "inf", "nans", "1e400s", "1e-400s",
                                  "ms", "", "1.5 min", "1h30min"});
}

TEST(UnitsParseCount, AcceptsEveryForm) {
  expect_parsed(parse_count, {{"175e9", 175e9}, {"1.5e6", 1.5e6}, {"1000", 1000.0}, {"1E3", 1000.0},
                              {"2e+3", 2000.0}, {"5e-1", 0.5}});
}

TEST(UnitsParseCount, Rejects) {
  expect_refused(parse_count, {"1K", "1M", "1B", "175 e9", "1e", "-5", "1e400", "nan", "inf", "", "1,000"});
}

TEST(UnitsParseFraction, AcceptsEveryForm) {
  // "1.5" parses: 0..1 is the caller's to enforce.
  expect_parsed(parse_fraction, {{"0.05", 0.05}, {"5%", 0.05}, {"12.5%", 0.125}, {"100%", 1.0}, {"1.5", 1.5}});
}

TEST(UnitsParseFraction, Rejects) {
  expect_refused(parse_fraction, {"5 %", "-5%", "%", "5%%", "-0.05", "nan%", "", "5 percent"});
}

TEST(UnitsFormat, Bytes) {
  EXPECT_EQ(format_bytes(1073741824.0), "1.00 GiB");
  EXPECT_EQ(format_bytes(1e9), "954 MiB");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(1.5 * 1099511627776.0), "1.50 TiB");
  EXPECT_EQ(format_bytes(12.3 * 1048576), "12.3 MiB");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(2.5), "2.50 B");
  EXPECT_EQ(format_bytes(1000), "0.977 KiB");  // three digits, never "1000 B"
  EXPECT_EQ(format_bytes(-1536), "-1.50 KiB");
  EXPECT_EQ(format_bytes(std::nan("")), "n/a");
}

TEST(UnitsFormat, Rate) {
  EXPECT_EQ(format_rate(2.15e9), "2.15 GB/s");
  EXPECT_EQ(format_rate(12345678), "12.3 MB/s");
  EXPECT_EQ(format_rate(999.7e6), "1.00 GB/s");  // rounds up into the next unit, not "1000 MB/s"
  EXPECT_EQ(format_rate(500), "500 B/s");
  EXPECT_EQ(format_rate(25e12), "25.0 TB/s");
  EXPECT_EQ(format_rate(0), "0 B/s");
  EXPECT_EQ(format_rate(std::numeric_limits<double>::infinity()), "n/a");
}

TEST(UnitsFormat, Duration) {
  EXPECT_EQ(format_duration(812e-6), "812 us");
  EXPECT_EQ(format_duration(1.25), "1.25 s");
  EXPECT_EQ(format_duration(180), "3.0 min");
  EXPECT_EQ(format_duration(3600), "1.00 h");
  EXPECT_EQ(format_duration(5400), "1.50 h");
  EXPECT_EQ(format_duration(100e-9), "100 ns");
  EXPECT_EQ(format_duration(12.3e-3), "12.3 ms");
  EXPECT_EQ(format_duration(45.6), "45.6 s");
  EXPECT_EQ(format_duration(0.9997e-3), "1.00 ms");
  EXPECT_EQ(format_duration(59.99), "1.0 min");
  EXPECT_EQ(format_duration(3599), "1.00 h");
  EXPECT_EQ(format_duration(0), "0 s");
  EXPECT_EQ(format_duration(-1.25), "-1.25 s");
  EXPECT_EQ(format_duration(std::nan("")), "n/a");
}

TEST(UnitsFormat, ParsesBackCloseToTheValue) {
  // What people see should read back within the three-digit rounding.
  for (double v : {1.0, 999.0, 1234.5, 4.2e6, 7.77e9, 3.3e12}) {
    const std::string s = format_rate(v);
    std::string compact = s;
    compact.erase(compact.find(' '), 1);
    auto back = parse_rate(compact);
    ASSERT_TRUE(back) << s;
    EXPECT_NEAR(*back, v, v * 0.005) << s;
  }
}

}  // namespace
}  // namespace iofab::units
