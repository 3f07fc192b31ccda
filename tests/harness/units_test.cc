#include "harness/core/units.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

namespace iofab::units {
namespace {

TEST(UnitsParseSize, AcceptsEveryForm) {
  EXPECT_EQ(parse_size("4096"), 4096u);
  EXPECT_EQ(parse_size("4KiB"), 4096u);
  EXPECT_EQ(parse_size("1MiB"), 1048576u);
  EXPECT_EQ(parse_size("1GiB"), 1073741824u);
  EXPECT_EQ(parse_size("1.5GiB"), 1610612736u);
  EXPECT_EQ(parse_size("2TiB"), 2199023255552u);
  EXPECT_EQ(parse_size("1PiB"), uint64_t{1} << 50);
  EXPECT_EQ(parse_size("2.5GB"), 2500000000u);
  EXPECT_EQ(parse_size("1TB"), 1000000000000u);
  EXPECT_EQ(parse_size("1kB"), 1000u);
  EXPECT_EQ(parse_size("1KB"), 1000u);
  EXPECT_EQ(parse_size("3MB"), 3000000u);
  EXPECT_EQ(parse_size("2PB"), 2000000000000000u);
  EXPECT_EQ(parse_size("512B"), 512u);
  EXPECT_EQ(parse_size("0"), 0u);
  EXPECT_EQ(parse_size("0.0B"), 0u);
  EXPECT_EQ(parse_size("1e9"), 1000000000u);
  EXPECT_EQ(parse_size("0.5KiB"), 512u);
  EXPECT_EQ(parse_size("0.1KB"), 100u);  // exact in decimal though 0.1 is not a double
  EXPECT_EQ(parse_size("2.50GB"), 2500000000u);
  EXPECT_EQ(parse_size("004KiB"), 4096u);
  EXPECT_EQ(parse_size(" \t4KiB\n"), 4096u);
  EXPECT_EQ(parse_size("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(parse_size("0.000000000931322574615478515625GiB"), 1u);  // 2^30 / 10^30 * 5^30
}

TEST(UnitsParseSize, Rejects) {
  for (const char* text : {"1 MB/s", "1MB/s", "1 MB", "4 KiB", "-1", "-0", "+1", "abc", "", "   ", "nan",
                           "inf", "infinity", "1e400", "4KiBx", "4KiB 4", "0.3B", "1.5", "0.1KiB",
                           "1.0000000001KB", "64k", "64K", "4kib", "4kb", "1e", "1e+", ".", "0x10", "1..5",
                           "1.5.5", "18446744073709551616", "16384PiB", "1e20", "KiB"}) {
    EXPECT_EQ(parse_size(text), std::nullopt) << "'" << text << "'";
  }
}

TEST(UnitsParseRate, AcceptsEveryForm) {
  EXPECT_EQ(parse_rate("2GB/s"), 2e9);
  EXPECT_EQ(parse_rate("500MiB/s"), 524288000.0);
  EXPECT_EQ(parse_rate("1.5GiB/s"), 1610612736.0);
  EXPECT_EQ(parse_rate("0.1GB/s"), 1e8);
  EXPECT_EQ(parse_rate("25kB/s"), 25000.0);
  EXPECT_EQ(parse_rate("1B/s"), 1.0);
  EXPECT_EQ(parse_rate("100"), 100.0);
  EXPECT_EQ(parse_rate("1.5e9"), 1.5e9);
  EXPECT_EQ(parse_rate(" 2GB/s "), 2e9);
}

TEST(UnitsParseRate, Rejects) {
  for (const char* text : {"1 MB/s", "2GB /s", "2GB/ s", "2GB", "/s", "5/s", "-1GB/s", "nanGB/s", "infGB/s",
                           "1e400", "1e400GB/s", "2Gb/s", "2GB/h", "2GB/s/s", "", "abc"}) {
    EXPECT_EQ(parse_rate(text), std::nullopt) << "'" << text << "'";
  }
}

TEST(UnitsParseDuration, AcceptsEveryForm) {
  EXPECT_EQ(parse_duration("500ms"), 0.5);
  EXPECT_EQ(parse_duration("90s"), 90.0);
  EXPECT_EQ(parse_duration("1.5min"), 90.0);
  EXPECT_EQ(parse_duration("1h"), 3600.0);
  EXPECT_EQ(parse_duration("0.5h"), 1800.0);
  EXPECT_EQ(parse_duration("250us"), 250e-6);
  EXPECT_EQ(parse_duration("100ns"), 100e-9);
  EXPECT_EQ(parse_duration("2"), 2.0);
  EXPECT_EQ(parse_duration("0.25"), 0.25);
  EXPECT_EQ(parse_duration("0s"), 0.0);
}

TEST(UnitsParseDuration, Rejects) {
  for (const char* text : {"5 s", "-1s", "1d", "1m", "1sec", "1S", "inf", "nans", "1e400s", "1e-400s", "ms",
                           "", "1.5 min", "1h30min"}) {
    EXPECT_EQ(parse_duration(text), std::nullopt) << "'" << text << "'";
  }
}

TEST(UnitsParseCount, AcceptsEveryForm) {
  EXPECT_EQ(parse_count("175e9"), 175e9);
  EXPECT_EQ(parse_count("1.5e6"), 1.5e6);
  EXPECT_EQ(parse_count("1000"), 1000.0);
  EXPECT_EQ(parse_count("1E3"), 1000.0);
  EXPECT_EQ(parse_count("2e+3"), 2000.0);
  EXPECT_EQ(parse_count("5e-1"), 0.5);
}

TEST(UnitsParseCount, Rejects) {
  for (const char* text : {"1K", "1M", "1B", "175 e9", "1e", "-5", "1e400", "nan", "inf", "", "1,000"}) {
    EXPECT_EQ(parse_count(text), std::nullopt) << "'" << text << "'";
  }
}

TEST(UnitsParseFraction, AcceptsEveryForm) {
  EXPECT_EQ(parse_fraction("0.05"), 0.05);
  EXPECT_EQ(parse_fraction("5%"), 0.05);
  EXPECT_EQ(parse_fraction("12.5%"), 0.125);
  EXPECT_EQ(parse_fraction("100%"), 1.0);
  EXPECT_EQ(parse_fraction("1.5"), 1.5);  // 0..1 is the caller's to enforce
}

TEST(UnitsParseFraction, Rejects) {
  for (const char* text : {"5 %", "-5%", "%", "5%%", "-0.05", "nan%", "", "5 percent"}) {
    EXPECT_EQ(parse_fraction(text), std::nullopt) << "'" << text << "'";
  }
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
