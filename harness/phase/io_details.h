// The details every storage phase (ingest, checkpoint, restore) reports the
// same way from its ranks' merged IoTally: the latency summary and histogram,
// the bandwidth series, each rank's figures and the engine that ran. One
// writer, so the reports' plots and `compare` find them under one set of keys.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "harness/phase/phase.h"
#include "harness/stats/io_tally.h"

namespace iofab {

// engine: the suite's name ("auto" is resolved to the engine that ran).
void put_io_details(const IoTally& total, const nlohmann::json& per_rank, std::string_view engine,
                    PhaseResult* result);

}  // namespace iofab
