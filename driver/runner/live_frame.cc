#include "driver/runner/live_frame.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "driver/runner/live_options.h"
#include "harness/core/units.h"

namespace iofab {

using nlohmann::json;

std::string encode_tick(const RankTick& t) {
  // CBOR: the histogram's wire form packs its buckets as binary, which JSON text cannot carry.
  const std::vector<uint8_t> bytes =
      json::to_cbor(json{{"b", t.bytes}, {"p", t.planned}, {"o", t.ops}, {"h", t.interval.to_wire()}, {"d", t.done}});
  return std::string(bytes.begin(), bytes.end());
}

bool decode_tick(const std::string& text, RankTick* out) {
  const json j = json::from_cbor(text, true, false);
  if (!j.is_object()) return false;
  for (const char* k : {"b", "p", "o"}) {
    if (!j.contains(k) || !j[k].is_number_unsigned()) return false;
  }
  RankTick t;
  t.bytes = j["b"].get<uint64_t>();
  t.planned = j["p"].get<uint64_t>();
  t.ops = j["o"].get<uint64_t>();
  if (!j.contains("d") || !j["d"].is_boolean()) return false;
  t.done = j["d"].get<bool>();
  if (!j.contains("h") || !t.interval.from_json(j["h"])) return false;
  *out = std::move(t);
  return true;
}

bool every_rank_done(const std::vector<RankTick>& ticks, const std::vector<bool>& decoded) {
  for (size_t r = 0; r < ticks.size(); ++r) {
    if (decoded[r] && !ticks[r].done) return false;
  }
  return true;
}

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

std::vector<LaggingRank> lagging_ranks(const std::vector<RankTick>& ticks, double factor) {
  std::vector<LaggingRank> out;
  if (ticks.size() < 2) return out;
  const bool shares =
      std::all_of(ticks.begin(), ticks.end(), [](const RankTick& t) { return t.planned > 0; });
  std::vector<double> done;
  for (const RankTick& t : ticks)
    done.push_back(shares ? double(t.bytes) / double(t.planned) : double(t.bytes));
  for (size_t r = 0; r < done.size(); ++r) {
    std::vector<double> others = done;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(r));
    const double m = median(others);
    // Not before the others are 5% in: ranks start a phase some milliseconds apart, and a rank at 0% while
    // the others are at 1% lags by no factor worth a line.
    if (m > (shares ? kLagMinShare : 0) && done[r] * factor < m)
      out.push_back({.rank = static_cast<int>(r), .ratio = done[r] / m});
  }
  return out;
}

std::optional<double> LiveFrame::eta_s() const {
  if (planned <= bytes || rate_so_far() <= 0) return std::nullopt;
  return (planned - bytes) / rate_so_far();
}

LiveFrame merge_ticks(const std::vector<RankTick>& now, const std::vector<RankTick>& previous) {
  LiveFrame f;
  f.ranks_reporting = static_cast<int>(now.size());
  for (size_t r = 0; r < now.size(); ++r) {
    const RankTick& t = now[r];
    f.bytes += t.bytes;
    f.planned += t.planned;
    f.ops += t.ops;
    const RankTick* p = r < previous.size() ? &previous[r] : nullptr;
    f.interval_bytes += t.bytes - std::min(t.bytes, p ? p->bytes : 0);
    f.interval_ops += t.ops - std::min(t.ops, p ? p->ops : 0);
    f.latency.merge(t.interval);  // counts added bucket by bucket: percentiles of every rank's I/Os
  }
  f.lagging = lagging_ranks(now, kLagFactor);
  return f;
}

json frame_json(const LiveFrame& f) {
  json lat = nullptr;
  if (f.latency.count() > 0) {
    lat = {{"count", f.latency.count()},
           {"p50", f.latency.percentile(0.5)},
           {"p99", f.latency.percentile(0.99)}};
  }
  json lag = json::array();
  for (const LaggingRank& l : f.lagging) lag.push_back({{"rank", l.rank}, {"ratio", l.ratio}});
  const std::optional<double> eta = f.eta_s();
  return {{"type", "interval"},
          {"run_id", f.run_id},
          {"phase", f.phase},
          {"time", f.time},
          {"last", f.last},
          {"elapsed_s", f.elapsed_s},
          {"interval_s", f.interval_s},
          {"ranks", f.ranks},
          {"ranks_reporting", f.ranks_reporting},
          {"bytes", f.bytes},
          {"planned_bytes", f.planned},
          {"ops", f.ops},
          {"interval_bytes", f.interval_bytes},
          {"interval_ops", f.interval_ops},
          {"bytes_per_s", f.rate()},
          {"bytes_per_s_so_far", f.rate_so_far()},
          {"ops_per_s", f.interval_s > 0 ? f.interval_ops / f.interval_s : 0.0},
          {"latency_ns", lat},
          {"eta_s", eta ? json(*eta) : json(nullptr)},
          {"lagging_ranks", lag},
          {"telemetry", f.telemetry}};
}

json final_json(const std::string& run_id, const std::string& phase, const std::string& status,
                double seconds, const json& metrics, uint64_t bytes, uint64_t ops) {
  return {{"type", "final"},    {"run_id", run_id},   {"phase", phase}, {"status", status},
          {"seconds", seconds}, {"metrics", metrics}, {"bytes", bytes}, {"ops", ops}};
}

std::string progress_text(const LiveFrame& f, uint64_t since_bytes, double since_s) {
  std::string line = f.time + " " + f.phase + " " + units::format_bytes(double(f.bytes));
  if (f.planned > 0) {
    char pct[48];
    std::snprintf(pct, sizeof pct, " of %s (%.1f%%)", units::format_bytes(double(f.planned)).c_str(),
                  100.0 * double(f.bytes) / double(f.planned));
    line += pct;
  }
  line += ", " + units::format_rate(f.rate_so_far()) + " so far, " +
          units::format_rate(since_s > 0 ? since_bytes / since_s : 0.0) + " in the last " +
          units::format_duration(since_s);
  if (const std::optional<double> eta = f.eta_s()) line += ", ETA " + units::format_duration(*eta);
  for (size_t i = 0; i < f.lagging.size(); ++i) {
    char r[96];
    std::snprintf(r, sizeof r, "%s rank %d (%.2fx the others' median)",
                  i ? "," : ", lagging:", f.lagging[i].rank, f.lagging[i].ratio);
    line += r;
  }
  return line + "\n";
}

namespace {

// A label value in the text format: backslash, quote and newline escaped.
std::string label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void gauge(std::string* out, const char* name, const char* help, const std::string& labels, double value) {
  char v[64];
  std::snprintf(v, sizeof v, "%.17g", value);
  *out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " gauge\n" + name + "{" + labels +
          "} " + v + "\n";
}

}  // namespace

std::string openmetrics_text(const LiveFrame& f) {
  const std::string l = "run_id=\"" + label(f.run_id) + "\",phase=\"" + label(f.phase) + "\"";
  std::string out;
  gauge(&out, "iofab_live_done_bytes", "Bytes the running phase moved so far, every rank.", l,
        double(f.bytes));
  gauge(&out, "iofab_live_planned_bytes", "Bytes the running phase plans to move, every rank.", l,
        double(f.planned));
  gauge(&out, "iofab_live_ops", "I/Os the running phase completed so far, every rank.", l, double(f.ops));
  gauge(&out, "iofab_live_rate_bytes_per_second", "The last interval's bytes per second, every rank.", l,
        f.rate());
  gauge(&out, "iofab_live_average_rate_bytes_per_second", "Bytes per second since the phase started.", l,
        f.rate_so_far());
  if (f.latency.count() > 0) {
    gauge(&out, "iofab_live_latency_p50_seconds",
          "The last interval's median I/O latency, every rank merged.", l, f.latency.percentile(0.5) * 1e-9);
    gauge(&out, "iofab_live_latency_p99_seconds", "The last interval's 99th percentile I/O latency, merged.",
          l, f.latency.percentile(0.99) * 1e-9);
  }
  if (const std::optional<double> eta = f.eta_s()) {
    gauge(&out, "iofab_live_eta_seconds", "Seconds left at the phase's average rate.", l, *eta);
  }
  gauge(&out, "iofab_live_ranks", "Ranks whose counters reached rank 0 this interval.", l, f.ranks_reporting);
  gauge(&out, "iofab_live_lagging_ranks", "Ranks behind the others' median by the lag factor.", l,
        double(f.lagging.size()));
  gauge(&out, "iofab_live_updated_timestamp_seconds", "When this file was written (Unix time).", l,
        f.elapsed_s >= 0 ? double(std::time(nullptr)) : 0);
  gauge(&out, "iofab_live_phase_finished", "1 once the phase has ended.", l, f.last ? 1 : 0);
  return out;
}

}  // namespace iofab
