#include "workloads/rdma/rdma_results.h"

#include <algorithm>
#include <string>

namespace iofab {

using nlohmann::json;

json RdmaSample::to_json() const {
  json j = {{"test", rdma_test_name(test)},
            {"kind", latency ? "latency" : "bandwidth"},
            {"size", size},
            {"link", {link.initiator, link.target}}};
  if (latency) {
    j["hist"] = lat.to_json();
  } else {
    // Whole nanoseconds keep the gathered text short.
    j.update({{"bytes", bw.bytes},
              {"messages", bw.messages},
              {"ns", static_cast<uint64_t>(bw.seconds * 1e9 + 0.5)}});
  }
  return j;
}

bool RdmaSample::from_json(const json& j, RdmaSample* out) {
  if (!j.is_object() || !j.contains("test") || !j["test"].is_string() || !j.contains("link") ||
      !j["link"].is_array() || j["link"].size() != 2 || !j["link"][0].is_number_integer() ||
      !j["link"][1].is_number_integer() || !j.contains("size") || !j["size"].is_number_unsigned()) {
    return false;
  }
  const auto t = parse_rdma_test(j["test"].get<std::string>());
  if (!t) return false;
  RdmaSample s;
  s.test = *t;
  s.latency = j.value("kind", "") == "latency";
  s.size = j["size"].get<uint64_t>();
  s.link = {j["link"][0].get<int>(), j["link"][1].get<int>()};
  if (s.latency) {
    if (!j.contains("hist") || !s.lat.from_json(j["hist"])) return false;
  } else {
    for (const char* k : {"bytes", "messages", "ns"}) {
      if (!j.contains(k) || !j[k].is_number_unsigned()) return false;
    }
    s.bw.bytes = j["bytes"].get<uint64_t>();
    s.bw.messages = j["messages"].get<uint64_t>();
    s.bw.seconds = static_cast<double>(j["ns"].get<uint64_t>()) * 1e-9;
  }
  *out = std::move(s);
  return true;
}

namespace {

template <class Summary>
Summary& group(std::vector<Summary>& groups, RdmaTest test, uint64_t size) {
  for (auto& g : groups) {
    if (g.test == test && g.size == size) return g;
  }
  groups.emplace_back();
  groups.back().test = test;
  groups.back().size = size;
  return groups.back();
}

double ns_to_seconds(uint64_t ns) { return static_cast<double>(ns) * 1e-9; }

}  // namespace

std::vector<BwSummary> summarize_bandwidth(const std::vector<RdmaSample>& samples) {
  std::vector<BwSummary> out;
  for (const auto& s : samples) {
    if (s.latency) continue;
    BwSummary& g = group(out, s.test, s.size);
    const double bw = s.bw.seconds > 0 ? static_cast<double>(s.bw.bytes) / s.bw.seconds : 0;
    const double rate = s.bw.seconds > 0 ? static_cast<double>(s.bw.messages) / s.bw.seconds : 0;
    g.worst = g.links == 0 ? bw : std::min(g.worst, bw);
    g.total += bw;
    g.msg_rate += rate;  // summed here, divided below
    g.per_link.push_back(bw);
    g.per_link_raw.push_back(s.bw);
    g.link_ids.push_back(s.link);
    ++g.links;
  }
  for (auto& g : out) {
    g.mean = g.total / g.links;
    g.msg_rate /= g.links;
  }
  return out;
}

std::vector<LatSummary> summarize_latency(const std::vector<RdmaSample>& samples) {
  std::vector<LatSummary> out;
  for (const auto& s : samples) {
    if (s.latency) group(out, s.test, s.size).merged.merge(s.lat);
  }
  for (auto& g : out) {
    g.p50_s = ns_to_seconds(g.merged.percentile(0.5));
    g.p99_s = ns_to_seconds(g.merged.percentile(0.99));
    g.p999_s = ns_to_seconds(g.merged.percentile(0.999));
    g.max_s = ns_to_seconds(g.merged.max());
    g.min_s = ns_to_seconds(g.merged.min());
    g.mean_s = g.merged.mean() * 1e-9;
  }
  return out;
}

void add_rdma_results(const std::vector<RdmaSample>& samples, PhaseResult* result) {
  auto& m = result->metrics;
  const auto keep_max = [&m](const std::string& name, double v) {
    auto it = m.find(name);
    if (it == m.end() || v > it->second) m[name] = v;
  };
  json bw_details = json::array();
  for (const auto& g : summarize_bandwidth(samples)) {
    const std::string t(rdma_test_name(g.test));
    const std::string size = std::to_string(g.size);
    const std::pair<std::string, double> figures[] = {{t + "_bytes_per_s", g.mean},
                                                      {t + "_total_bytes_per_s", g.total},
                                                      {t + "_worst_link_bytes_per_s", g.worst},
                                                      {t + "_msg_rate", g.msg_rate}};
    for (const auto& [name, v] : figures) {
      m[name + "." + size] = v;
      keep_max(name + ".max", v);
    }
    json links = json::array();
    for (size_t i = 0; i < g.per_link.size(); ++i) {
      links.push_back({{"initiator", g.link_ids[i].initiator},
                       {"target", g.link_ids[i].target},
                       {"bytes_per_s", g.per_link[i]},
                       {"bytes", g.per_link_raw[i].bytes},
                       {"messages", g.per_link_raw[i].messages},
                       {"seconds", g.per_link_raw[i].seconds}});
    }
    bw_details.push_back({{"test", t},
                          {"size", g.size},
                          {"links", g.links},
                          {"bytes_per_s", g.mean},
                          {"total_bytes_per_s", g.total},
                          {"worst_link_bytes_per_s", g.worst},
                          {"msg_rate", g.msg_rate},
                          {"per_link", links}});
  }
  json lat_details = json::array();
  const std::vector<LatSummary> lats = summarize_latency(samples);
  for (const auto& g : lats) {
    const std::string t(rdma_test_name(g.test));
    const std::string size = std::to_string(g.size);
    const std::pair<std::string, double> figures[] = {{t + "_latency_p50_s", g.p50_s},
                                                      {t + "_latency_p99_s", g.p99_s},
                                                      {t + "_latency_p999_s", g.p999_s},
                                                      {t + "_latency_max_s", g.max_s}};
    // The smallest size is the headline, as perftest's latency tests default to 2 bytes.
    const bool headline = std::none_of(
        lats.begin(), lats.end(), [&g](const LatSummary& o) { return o.test == g.test && o.size < g.size; });
    for (const auto& [name, v] : figures) {
      m[name + "." + size] = v;
      if (headline) m[name] = v;
    }
    lat_details.push_back({{"test", t},
                           {"size", g.size},
                           {"measure", g.test == RdmaTest::kRead ? "round trip" : "half round trip"},
                           {"samples", g.merged.count()},
                           {"min_s", g.min_s},
                           {"mean_s", g.mean_s},
                           {"p50_s", g.p50_s},
                           {"p99_s", g.p99_s},
                           {"p999_s", g.p999_s},
                           {"max_s", g.max_s}});
  }
  result->details["bandwidth"] = bw_details;
  result->details["latency"] = lat_details;
}

}  // namespace iofab
