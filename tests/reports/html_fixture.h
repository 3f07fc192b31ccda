// A report with every phase the page plots (ingest, train_read,
// checkpoint, restore, collectives) and the details each plot reads, for
// the page's tests (tests/reports/html_report_test.cc and the headless
// Chromium test). speed scales the bandwidths, so two systems differ.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "harness/stats/histogram.h"
#include "harness/stats/time_series.h"
#include "reports/report_fixtures.h"

namespace iofab::testing {

// Plots full_report() feeds: bandwidth, latency CDF, checkpoint stall, restore time,
// three time series (ingest, ckpt, restore), the ingest's host activity, busbw per op (all_reduce,
// all_gather), steps.
inline constexpr size_t kFullReportPlots = 11;

// A host's telemetry of n one-second samples: the disk busy all along, the CPU waiting on it.
inline nlohmann::json telemetry_json(int n, double util) {
  nlohmann::json samples = nlohmann::json::array();
  for (int i = 0; i < n; ++i) {
    samples.push_back({{"t_s", i + 1.0},
                       {"seconds", 1.0},
                       {"cpu_user", 0.1},
                       {"cpu_system", 0.05 * (i % 2)},
                       {"cpu_iowait", 0.6},
                       {"busiest_core", 0.3},
                       {"disks", nlohmann::json::array({{{"device", "nvme0n1"}, {"util", util}, {"in_flight", 8}}})}});
  }
  return {{"interval_s", 1.0}, {"hosts", nlohmann::json::array({{{"host", "n"}, {"samples", samples}}})}};
}

inline nlohmann::json series_json(double bytes_per_s, int intervals) {
  TimeSeries ts(100'000'000);
  for (int i = 0; i < intervals; ++i) {
    // A dip in the middle, as a stall would make.
    const double f = (i > intervals / 2 && i < intervals / 2 + 3) ? 0.3 : 1.0;
    ts.add(static_cast<uint64_t>(i) * 100'000'000 + 1, static_cast<uint64_t>(bytes_per_s * 0.1 * f));
  }
  return ts.to_json();
}

inline nlohmann::json full_report(const std::string& hostname, double speed) {
  using nlohmann::json;
  json ingest = make_phase(
      "ingest", "ingest",
      {{"write_bytes_per_s", 1e9 * speed}, {"write_bytes", 4e9}, {"latency_p99_s", 0.004 / speed}});
  ingest["result"]["details"]["headline"] = {"write_bytes_per_s", "write_bytes"};
  ingest["result"]["details"]["series"] = series_json(1e9 * speed, 40);
  ingest["result"]["details"]["telemetry"] = telemetry_json(4, 0.95 * speed);
  add_check(&ingest, "ingest bandwidth", "write_bytes_per_s", ">=", 8e8, 1e9 * speed, speed >= 0.8);

  json train =
      make_phase("train", "train_read",
                 {{"read_bytes_per_s", 2e9 * speed}, {"samples_per_s", 15000 * speed}, {"au", 0.95}});
  Histogram h;
  for (int i = 1; i <= 2000; ++i) h.record(static_cast<uint64_t>((50'000 + 40 * i) / speed));
  for (int i = 0; i < 20; ++i) h.record(static_cast<uint64_t>(4'000'000 / speed));
  train["result"]["details"]["sample_latency_histogram"] = h.to_json();
  add_check(&train, "AU at least 90%", "au", ">=", 0.9, 0.95, true);

  json ckpt = make_phase("ckpt", "checkpoint",
                         {{"write_bytes_per_s", 5e9 * speed},
                          {"stall_seconds_max", 2.0 / speed},
                          {"projected_stall_seconds", 150 / speed},
                          {"allowed_stall_seconds", 180},
                          {"budget_margin", 1.2 * speed}});
  json cps = json::array();
  for (int i = 0; i < 4; ++i) {
    const double projected = (140 + 10 * i) / speed;
    cps.push_back(
        {{"step", 100 * (i + 1)},
         {"stall_seconds", 2.0 / speed},
         {"budget",
          {{"allowed_seconds", 180}, {"projected_seconds", projected}, {"passed", projected <= 180}}}});
  }
  ckpt["result"]["details"]["checkpoints"] = cps;
  ckpt["result"]["details"]["series"] = series_json(5e9 * speed, 30);

  json restore = make_phase("restore", "restore",
                            {{"read_bytes_per_s", 8e9 * speed},
                             {"restore_seconds", 12 / speed},
                             {"projected_restore_seconds", 400 / speed},
                             {"allowed_restore_seconds", 600}});
  restore["result"]["details"]["series"] = series_json(8e9 * speed, 25);

  json coll_metrics = json::object();
  for (int e = 10; e <= 26; e += 2) {
    const double size = std::ldexp(1.0, e);
    const double bw = 20e9 * speed * size / (size + 4e6);
    coll_metrics["busbw.all_reduce." + std::to_string(static_cast<long long>(size))] = bw;
    coll_metrics["busbw.all_gather." + std::to_string(static_cast<long long>(size))] = bw * 0.8;
  }
  coll_metrics["busbw.all_reduce.max"] = 20e9 * speed;
  coll_metrics["ddp.step_seconds"] = 0.30 / speed;
  coll_metrics["ddp.compute_seconds"] = 0.25;
  coll_metrics["ddp.exposed_comm_seconds"] = 0.30 / speed - 0.25;
  coll_metrics["fsdp.step_seconds"] = 0.36 / speed;
  coll_metrics["fsdp.compute_seconds"] = 0.25;
  coll_metrics["fsdp.exposed_comm_seconds"] = 0.36 / speed - 0.25;
  json coll = make_phase("coll", "collectives", coll_metrics);

  json doc = make_report(json::array({ingest, train, ckpt, restore, coll}), kSuiteSha, 1, hostname);
  if (speed < 0.8)
    doc["verdict"] = {{"status", "failed"}, {"reasons", {"ingest: check ingest bandwidth failed"}}};
  return doc;
}

}  // namespace iofab::testing
