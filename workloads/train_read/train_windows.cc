#include "workloads/train_read/train_windows.h"

#include "harness/comm/wire.h"

namespace iofab {

using nlohmann::json;

namespace {

constexpr const char* kOutside = "outside";

// The window kinds a metric is named after; a kind not listed still shows in details.windows.
constexpr const char* kNamedKinds[] = {"burst", "drain"};

}  // namespace

void WindowSplit::merge(const WindowSplit& other) {
  present = present || other.present;
  complete = complete && other.complete;
  for (const auto& [k, n] : other.windows) windows[k] += n;
  for (const auto& [k, c] : other.classes) {
    WindowClass& mine = classes[k];
    mine.active_ns += c.active_ns;
    mine.busy_ns += c.busy_ns;
    mine.latency.merge(c.latency);
  }
  unclassified_samples += other.unclassified_samples;
}

json WindowSplit::to_json() const {
  json cls = json::object();
  for (const auto& [k, c] : classes) {
    cls[k] = {{"active_ns", c.active_ns}, {"busy_ns", c.busy_ns}, {"latency", c.latency.to_json()}};
  }
  return {{"present", present},
          {"complete", complete},
          {"windows", windows},
          {"classes", cls},
          {"unclassified_samples", unclassified_samples}};
}

bool WindowSplit::from_json(const json& j) {
  WindowSplit s;
  WireReader r(j);
  r.field("present", &s.present).field("complete", &s.complete).field("unclassified_samples", &s.unclassified_samples);
  if (!r.status().ok() || !j.contains("windows") || !j["windows"].is_object() || !j.contains("classes") ||
      !j["classes"].is_object()) {
    return false;
  }
  for (const auto& [k, v] : j["windows"].items()) {
    if (!v.is_number_unsigned()) return false;
    s.windows[k] = v.get<uint64_t>();
  }
  for (const auto& [k, v] : j["classes"].items()) {
    WindowClass c;
    WireReader cr(v);
    cr.field("active_ns", &c.active_ns).field("busy_ns", &c.busy_ns);
    if (!cr.status().ok() || !v.contains("latency") || !c.latency.from_json(v["latency"])) return false;
    s.classes[k] = std::move(c);
  }
  *this = std::move(s);
  return true;
}

json to_wire(const WindowSplit& s) { return s.to_json(); }

Status from_wire(const json& j, WindowSplit* out) {
  return out->from_json(j) ? Status::Ok() : Status::Invalid("windows: not a window split");
}

WindowSplit split_by_windows(const LoaderMarks& marks, const std::vector<TimeWindow>& windows, bool complete) {
  WindowSplit s;
  s.present = true;
  s.complete = complete;
  s.unclassified_samples = marks.dropped_samples;
  std::map<std::string, std::vector<TimeSpan>> by_kind;
  std::vector<TimeSpan> any;
  for (const TimeWindow& w : windows) {
    s.windows[w.kind]++;
    by_kind[w.kind].push_back({w.start_ns, w.end_ns});
    any.push_back({w.start_ns, w.end_ns});
  }
  const std::vector<TimeSpan> active = merge_spans(marks.active);
  const std::vector<TimeSpan> busy = merge_spans(marks.busy);
  any = merge_spans(std::move(any));
  for (auto& [kind, spans] : by_kind) {
    spans = merge_spans(std::move(spans));
    WindowClass& c = s.classes[kind];
    c.active_ns = spans_overlap(active, spans);
    c.busy_ns = spans_overlap(busy, spans);
    for (const auto& m : marks.samples) {
      if (spans_cover(spans, m.end_ns)) c.latency.record(m.latency_ns);
    }
  }
  WindowClass& out = s.classes[kOutside];
  out.active_ns = spans_length(active) - spans_overlap(active, any);
  out.busy_ns = spans_length(busy) - spans_overlap(busy, any);
  for (const auto& m : marks.samples) {
    if (!spans_cover(any, m.end_ns)) out.latency.record(m.latency_ns);
  }
  return s;
}

void report_window_split(const WindowSplit& merged, PhaseResult* result) {
  if (!merged.present) return;
  json classes = json::object();
  for (const auto& [kind, c] : merged.classes) {
    const bool outside = kind == kOutside;
    json d = {{"active_seconds", static_cast<double>(c.active_ns) / 1e9},
              {"compute_seconds", static_cast<double>(c.busy_ns) / 1e9},
              {"samples", c.latency.count()}};
    bool named = outside;
    for (const char* k : kNamedKinds) named = named || kind == k;
    const std::string suffix = outside ? "outside" : "during_" + kind;
    if (c.active_ns > 0) {
      const double au = static_cast<double>(c.busy_ns) / static_cast<double>(c.active_ns);
      d["au"] = au;
      if (named) result->metrics["au_" + suffix] = au;
    }
    if (c.latency.count() > 0) {
      d["sample_latency_p50_s"] = static_cast<double>(c.latency.percentile(0.5)) / 1e9;
      d["sample_latency_p99_s"] = static_cast<double>(c.latency.percentile(0.99)) / 1e9;
      if (named) result->metrics["sample_latency_p99_" + suffix + "_s"] = d["sample_latency_p99_s"].get<double>();
    }
    classes[kind] = std::move(d);
  }
  result->details["windows"] = {{"count", merged.windows},
                                {"classes", classes},
                                {"complete", merged.complete},
                                {"unclassified_samples", merged.unclassified_samples}};
  if (!merged.complete) {
    result->warnings.push_back("windows: the run stopped before every phase that posts windows had ended, so the "
                               "during/outside split covers only the windows posted by then");
  }
  if (merged.unclassified_samples > 0) {
    result->warnings.push_back("windows: " + std::to_string(merged.unclassified_samples) +
                               " samples past the first " + std::to_string(LoaderMarks::kMaxSamples) +
                               " of a rank were not placed in or out of windows (their AU share still is)");
  }
}

const std::vector<MetricInfo>& window_metric_infos() {
  static const std::vector<MetricInfo> kInfos = {
      {.name = "au_during_burst",
       .unit = Unit::kFraction,
       .better = Better::kHigher,
       .description =
           "concurrent group: AU while another phase's checkpoint burst (the training stall) was on"},
      {.name = "au_during_drain",
       .unit = Unit::kFraction,
       .better = Better::kHigher,
       .description = "concurrent group: AU while another phase's checkpoint drained to storage"},
      {.name = "au_outside",
       .unit = Unit::kFraction,
       .better = Better::kHigher,
       .description = "concurrent group: AU outside every window the group's other phases posted"},
      {.name = "sample_latency_p99_during_burst_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "concurrent group: sample latency p99, samples that ended inside a burst"},
      {.name = "sample_latency_p99_during_drain_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "concurrent group: sample latency p99, samples that ended inside a drain"},
      {.name = "sample_latency_p99_outside_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "concurrent group: sample latency p99, samples that ended outside every window"},
  };
  return kInfos;
}

}  // namespace iofab
