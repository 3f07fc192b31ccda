// libFuzzer target: what one rank sends another (wire.h) read by rank 0's
// decoders. Bytes from a peer must give a value or a refusal, never a crash;
// and a tally, histogram, series or sample that reads must cross the wire
// again to the same value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/comm/wire.h"
#include "harness/core/packed_u64.h"
#include "harness/stats/histogram.h"
#include "harness/stats/io_tally.h"
#include "harness/stats/time_series.h"
#include "workloads/collectives/sweep.h"
#include "workloads/train_read/train_read_results.h"

namespace {

using nlohmann::json;

json again(const json& j) {
  json back;
  if (!iofab::wire_decode(iofab::wire_bytes(j), &back)) __builtin_trap();  // our own bytes must read
  return back;
}

// Whatever part of the value has each shape.
void read_as_everything(const json& j) {
  iofab::IoTally t;
  if (t.from_json(j)) {
    iofab::IoTally back;
    if (!back.from_json(again(t.to_wire())) || back.to_json() != t.to_json()) __builtin_trap();
  }
  iofab::Histogram h;
  if (h.from_json(j)) {
    iofab::Histogram back;
    if (!back.from_json(again(h.to_wire())) || back.to_json() != h.to_json()) __builtin_trap();
    (void)h.percentile(0.99);
  }
  iofab::TimeSeries s;
  if (s.from_json(j)) {
    iofab::TimeSeries back;
    if (!back.from_json(again(s.to_wire())) || back.bytes() != s.bytes()) __builtin_trap();
  }
  std::vector<uint64_t> values;
  if (iofab::unpack_u64(j, &values)) {
    std::vector<uint64_t> back;
    if (!iofab::unpack_u64(again(iofab::pack_u64(values)), &back) || back != values) __builtin_trap();
  }
  iofab::SizeSample sample;
  if (iofab::SizeSample::from_json(j, &sample)) (void)again(sample.to_wire());
  iofab::RankReport report;
  if (iofab::from_wire(j, &report).ok()) (void)again(iofab::to_wire(report));
  iofab::Status status;
  (void)iofab::from_wire(j, &status);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  json j;
  if (!iofab::wire_decode(std::string(reinterpret_cast<const char*>(data), size), &j)) return 0;
  read_as_everything(j);
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) read_as_everything(value);
  }
  return 0;
}
