// The bottleneck hint: each rule fires on the telemetry it names, and stays silent otherwise.
#include "reports/bottleneck_hint.h"

#include <gtest/gtest.h>

namespace iofab {
namespace {

using nlohmann::json;

// A host's telemetry of n one-second samples, each with these figures.
json telemetry(size_t n, double busiest_core, double iofab_cores, double util, double in_flight) {
  json samples = json::array();
  for (size_t i = 0; i < n; ++i) {
    samples.push_back({{"seconds", 1.0},
                       {"busiest_core", busiest_core},
                       {"process_cpu_cores", iofab_cores},
                       {"disks", json::array({{{"device", "vda"}, {"util", util}, {"in_flight", in_flight}}})}});
  }
  // The last, short sample of a phase's end does not count: make it contradict the rest.
  samples.push_back({{"seconds", 0.1},
                     {"busiest_core", 0.0},
                     {"process_cpu_cores", 0.0},
                     {"disks", json::array({{{"device", "vda"}, {"util", 0.0}, {"in_flight", 0}}})}});
  return {{"interval_s", 1.0}, {"hosts", json::array({{{"host", "n1"}, {"samples", samples}}})}};
}

TEST(BottleneckHint, ADeviceBusyAllTheTimeIsTheBottleneck) {
  const auto h = bottleneck_hint(telemetry(5, 0.4, 0.3, 0.99, 31));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ((*h)["kind"], "device");
  EXPECT_EQ((*h)["device"], "vda");
  EXPECT_DOUBLE_EQ((*h)["util"].get<double>(), 0.99);
  EXPECT_EQ((*h)["samples"], 5);
  EXPECT_EQ(hint_text(*h), "device-bound: vda busy 99% of the time, 31 I/Os in flight on average (host n1, 5 samples)");
}

TEST(BottleneckHint, ACoreOfIofabsOwnAtItsLimitBesideAnIdleDevice) {
  const auto h = bottleneck_hint(telemetry(4, 0.98, 1.0, 0.41, 1));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ((*h)["kind"], "cpu");
  EXPECT_EQ(hint_text(*h), "CPU-bound: one core at 98%, iofab using 1 cores, while vda was 41% busy (host n1, 4 samples)");
}

TEST(BottleneckHint, ABusyCoreThatIsNotIofabsIsOtherLoad) {
  const auto h = bottleneck_hint(telemetry(4, 0.97, 0.1, 0.3, 1));
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ((*h)["kind"], "other_load");
}

TEST(BottleneckHint, SilentWhenNoRuleFiresOrTooFewSamples) {
  EXPECT_FALSE(bottleneck_hint(telemetry(5, 0.6, 0.5, 0.7, 4)).has_value());   // nothing at a limit
  EXPECT_FALSE(bottleneck_hint(telemetry(2, 0.4, 0.3, 0.99, 31)).has_value());  // 2 whole samples only
  EXPECT_FALSE(bottleneck_hint(json::object()).has_value());
  EXPECT_FALSE(bottleneck_hint({{"interval_s", 0}, {"hosts", json::array()}, {"off", "x"}}).has_value());
}

}  // namespace
}  // namespace iofab
