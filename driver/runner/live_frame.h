// The arithmetic of a live stream (docs/live.md), pure so tests call it on made-up counts: what a rank
// sends rank 0 each interval (RankTick), rank 0's merge of every rank's into one LiveFrame, the ranks
// that lag, and the three renderings of a frame (a JSON line, a plain progress line, a textfile).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/stats/histogram.h"

namespace iofab {

// One rank's counters at an interval's end: cumulative bytes and I/Os of the phase, its planned bytes,
// the latencies of the interval's I/Os, and whether the rank's phase has ended (its counters are final).
struct RankTick {
  uint64_t bytes = 0, planned = 0, ops = 0;
  Histogram interval;
  bool done = false;
};
std::string encode_tick(const RankTick& t);
bool decode_tick(const std::string& text, RankTick* out);

// Rank 0 ends a phase's stream only once every rank's phase has ended, so the last frame holds each rank's
// final counters. A rank whose tick did not decode cannot say so and does not hold the end up.
bool every_rank_done(const std::vector<RankTick>& ticks, const std::vector<bool>& decoded);

// A rank lags (kLagFactor, live_options.h) only once the others' median share is past this: ranks start a
// phase some milliseconds apart, which is no lag.
inline constexpr double kLagMinShare = 0.05;

struct LaggingRank {
  int rank = 0;
  double ratio = 0;  // its share done over the others' median share
};
// Ranks whose share done (of their planned bytes when every rank plans some, else their bytes) is below
// the other ranks' median over factor; none before the others' median share is past kLagMinShare (or, by
// bytes, before they moved any).
std::vector<LaggingRank> lagging_ranks(const std::vector<RankTick>& ticks, double factor);

struct LiveFrame {
  std::string run_id, phase, time;  // time: RFC 3339, UTC
  bool last = false;                // the phase's last interval (its end)
  double elapsed_s = 0, interval_s = 0;
  int ranks = 1, ranks_reporting = 1;
  uint64_t bytes = 0, planned = 0, ops = 0;
  uint64_t interval_bytes = 0, interval_ops = 0;
  Histogram latency;  // the interval's I/Os on every rank, merged
  std::vector<LaggingRank> lagging;
  nlohmann::json telemetry;  // rank 0's host's last sample, or null

  double rate() const { return interval_s > 0 ? interval_bytes / interval_s : 0; }
  double rate_so_far() const { return elapsed_s > 0 ? bytes / elapsed_s : 0; }
  std::optional<double> eta_s() const;
};

// previous: every rank's tick at the interval before (empty at the phase's start).
LiveFrame merge_ticks(const std::vector<RankTick>& now, const std::vector<RankTick>& previous);

nlohmann::json frame_json(const LiveFrame& f);
// The last line of a phase: the report's figures for it (status, seconds, metrics) and the bytes the
// stream counted.
nlohmann::json final_json(const std::string& run_id, const std::string& phase, const std::string& status,
                          double seconds, const nlohmann::json& metrics, uint64_t bytes, uint64_t ops);
// A plain line for a log: no terminal control codes. since_bytes/since_s: the bytes and time since the
// line before (its own interval, --progress-every).
std::string progress_text(const LiveFrame& f, uint64_t since_bytes, double since_s);
// node_exporter's textfile format (Prometheus text exposition).
std::string openmetrics_text(const LiveFrame& f);

}  // namespace iofab
