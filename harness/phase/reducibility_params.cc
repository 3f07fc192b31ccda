#include "harness/phase/reducibility_params.h"

#include <string>

#include "harness/phase/params.h"

namespace iofab {

namespace {

// A fraction in [0, 1): 1 would mean data that vanish, which no generator can write.
double read_below_one(ParamReader& r, const char* key) {
  const double v = r.fraction(key, 0, 0, 1);
  if (v >= 1) {
    r.fail(key, "must be below 1 (a fraction in [0, 1), e.g. 0.5 or \"50%\")");
    return 0;
  }
  return v;
}

}  // namespace

Reducibility read_reducibility(ParamReader& r) {
  Reducibility out;
  out.compressibility = read_below_one(r, "compressibility");
  out.dedup = read_below_one(r, "dedup");
  return out;
}

nlohmann::json reducibility_details(const Reducibility& r, uint64_t dedup_block_bytes) {
  return {{"reducible", r.any()},
          {"compressibility", r.compressibility},
          {"dedup", r.dedup},
          {"dedup_block_bytes", r.dedup > 0 ? dedup_block_bytes : 0},
          {"compress_chunk_bytes", r.compressibility > 0 ? kDataSector : 0}};
}

}  // namespace iofab
