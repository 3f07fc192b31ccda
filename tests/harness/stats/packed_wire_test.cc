// The packed wire forms (packed_u64.h): a histogram, a series and a tally
// cross the wire as MessagePack binary and read back to the same value, a
// report's plain arrays still read, and a packed value that is cut or too
// long is refused, not half read.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "harness/comm/wire.h"
#include "harness/core/packed_u64.h"
#include "harness/stats/histogram.h"
#include "harness/stats/io_tally.h"
#include "harness/stats/time_series.h"

namespace iofab {
namespace {

using nlohmann::json;

json through_wire(const json& j) {
  json back;
  EXPECT_TRUE(wire_decode(wire_bytes(j), &back));
  return back;
}

TEST(PackedU64, ValuesComeBackExactlyWhateverTheirSize) {
  const std::vector<uint64_t> v = {0, 1, 255, 256, 65535, 1ULL << 32, UINT64_MAX - 1, UINT64_MAX};
  const json packed = through_wire(pack_u64(v));
  ASSERT_TRUE(packed.is_binary());
  std::vector<uint64_t> back;
  ASSERT_TRUE(unpack_u64(packed, &back));
  EXPECT_EQ(back, v);
  ASSERT_TRUE(unpack_u64(pack_u64(std::vector<uint64_t>{}), &back));
  EXPECT_TRUE(back.empty());
}

TEST(PackedU64, VarintBytesAsDocumented) {
  // 1: one byte; 300 = 0b10'0101100: 0xAC (low 7 bits, more to come), 0x02; 2^64-1: ten bytes.
  const json packed = pack_u64(std::vector<uint64_t>{1, 300, UINT64_MAX});
  const std::vector<uint8_t> b(packed.get_binary().begin(), packed.get_binary().end());
  ASSERT_EQ(b.size(), 1u + 2u + 10u);
  EXPECT_EQ(b[0], 0x01);
  EXPECT_EQ(b[1], 0xAC);
  EXPECT_EQ(b[2], 0x02);
  EXPECT_EQ(b[12], 0x01);
}

TEST(PackedU64, APlainArrayStillReads) {
  std::vector<uint64_t> back;
  ASSERT_TRUE(unpack_u64(json::array({3, 4, 5}), &back));
  EXPECT_EQ(back, (std::vector<uint64_t>{3, 4, 5}));
}

TEST(PackedU64, MalformedValuesAreRefusedAndTheOutputLeftAlone) {
  std::vector<uint64_t> out = {42};
  json cut = pack_u64(std::vector<uint64_t>{1, 300});
  cut.get_binary().pop_back();  // ends inside 300
  EXPECT_FALSE(unpack_u64(cut, &out));
  json too_long = json::binary(json::binary_t::container_type(10, 0xFF));
  too_long.get_binary().push_back(0x01);  // 11 bytes: past 64 bits
  EXPECT_FALSE(unpack_u64(too_long, &out));
  json top = json::binary(json::binary_t::container_type(9, 0xFF));
  top.get_binary().push_back(0x02);  // the 10th byte holding more than bit 63
  EXPECT_FALSE(unpack_u64(top, &out));
  EXPECT_FALSE(unpack_u64(pack_u64(std::vector<uint64_t>{1, 2, 3}), &out, 2));  // more than allowed
  EXPECT_FALSE(unpack_u64(json::array({1, -2}), &out));
  EXPECT_FALSE(unpack_u64(json("12"), &out));
  EXPECT_EQ(out, std::vector<uint64_t>{42});
}

Histogram lognormal_histogram(uint32_t seed, int n) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(11.0, 1.5);  // ~60 us median, a long tail
  Histogram h;
  for (int i = 0; i < n; ++i) h.record(static_cast<uint64_t>(d(rng)));
  return h;
}

TEST(HistogramWire, ThePackedFormReadsBackToTheSameHistogram) {
  const Histogram h = lognormal_histogram(7, 20000);
  const json wire = through_wire(h.to_wire());
  ASSERT_TRUE(wire["buckets"].is_binary());
  Histogram back;
  ASSERT_TRUE(back.from_json(wire));
  // The report form of both is the same value, bucket for bucket.
  EXPECT_EQ(back.to_json(), h.to_json());
  EXPECT_EQ(back.percentile(0.99), h.percentile(0.99));
}

TEST(HistogramWire, APackedFormThatDoesNotAddUpIsRefused) {
  const Histogram h = lognormal_histogram(8, 1000);
  json wire = h.to_wire();
  std::vector<uint64_t> pairs;
  ASSERT_TRUE(unpack_u64(wire["buckets"], &pairs));
  ASSERT_GE(pairs.size(), 2u);

  Histogram back = lognormal_histogram(9, 10);
  const json before = back.to_json();
  json odd = wire;
  odd["buckets"] =
      pack_u64(std::vector<uint64_t>(pairs.begin(), pairs.end() - 1));  // an index without a count
  EXPECT_FALSE(back.from_json(odd));
  json extra = wire;
  pairs[1] += 1;  // one more sample than "count"
  extra["buckets"] = pack_u64(pairs);
  EXPECT_FALSE(back.from_json(extra));
  json out_of_range = wire;
  out_of_range["buckets"] = pack_u64(std::vector<uint64_t>{1ULL << 40, h.count()});
  EXPECT_FALSE(back.from_json(out_of_range));
  EXPECT_EQ(back.to_json(), before);  // unchanged by every refusal
}

TEST(TimeSeriesWire, ThePackedFormReadsBackAndTheReportFormStaysAnArray) {
  TimeSeries s(100'000'000);
  for (uint64_t t = 0; t < 60'000'000'000ULL; t += 7'000'000) s.add(t, t % 1000003);
  EXPECT_TRUE(s.to_json()["bytes"].is_array());
  const json wire = through_wire(s.to_wire());
  ASSERT_TRUE(wire["bytes"].is_binary());
  TimeSeries back;
  ASSERT_TRUE(back.from_json(wire));
  EXPECT_EQ(back.interval_ns(), s.interval_ns());
  EXPECT_EQ(back.bytes(), s.bytes());
}

TEST(IoTallyWire, ATallyCrossesTheWireWhole) {
  IoTally t;
  t.bytes = 123456789;
  t.ios = 4321;
  t.span(1000, 987654321);
  t.latency = lognormal_histogram(10, 4321);
  for (uint64_t i = 0; i < 600; ++i) t.series.add(i * 100'000'000, i * 4096);
  const json wire = through_wire(to_wire(t));  // wire.h's generic to_wire picks the packed form
  EXPECT_TRUE(wire["latency"]["buckets"].is_binary());
  EXPECT_TRUE(wire["series"]["bytes"].is_binary());
  IoTally back;
  ASSERT_TRUE(from_wire(wire, &back).ok());
  EXPECT_EQ(back.to_json(), t.to_json());
  // Smaller than the JSON text of the same tally: what rank 0 receives from each rank.
  EXPECT_LT(wire_bytes(to_wire(t)).size(), t.to_json().dump().size());
}

}  // namespace
}  // namespace iofab
