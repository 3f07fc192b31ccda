// The written data's reducibility, as every writing phase reads it from the suite (`compressibility`,
// `dedup`) and states it in its report (details.data_reducibility). One reader, so that every phase that
// writes takes the same keys with the same checks, and a new writing phase adds one call.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "harness/engines/data_fill.h"

namespace iofab {

class ParamReader;

// Reads compressibility and dedup with r, each a fraction in [0, 1) (default 0: nothing reducible);
// errors go to r like any param's, naming the key's JSON path.
Reducibility read_reducibility(ParamReader& r);

// What the report says of the data a phase wrote: the request, the generator, and the unit dedup
// applies at (dedup_block_bytes: the phase's block). {"compressibility", "dedup", "dedup_block_bytes",
// "compress_chunk_bytes", "reducible"}; compress_chunk_bytes and dedup_block_bytes are 0 when nothing is
// reducible.
nlohmann::json reducibility_details(const Reducibility& r, uint64_t dedup_block_bytes);

}  // namespace iofab
