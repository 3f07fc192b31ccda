#include "workloads/collectives/sweep_stats.h"

#include <algorithm>
#include <cmath>

namespace iofab {

using nlohmann::json;

json SizeStats::to_json() const {
  json j = {{"op", coll_op_name(op)}, {"size", size}, {"bytes", bytes}, {"count", count}, {"ran", ran}};
  if (!ran) return j;
  j.update({{"mean_s", mean_s},
            {"p50_s", p50_s},
            {"p99_s", p99_s},
            {"algbw", algbw},
            {"busbw", busbw},
            {"checked", checked},
            {"wrong", wrong},
            {"skew", skew},
            {"rank_mean_s", rank_mean_s}});
  return j;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double rank = std::ceil(std::clamp(p, 0.0, 1.0) * static_cast<double>(v.size()));
  const size_t idx = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return v[std::min(idx, v.size() - 1)];
}

bool merge_sweep(const std::vector<std::vector<SizeSample>>& per_rank, std::vector<SizeStats>* out) {
  out->clear();
  if (per_rank.empty()) return true;
  const int ranks = static_cast<int>(per_rank.size());
  const size_t n = per_rank[0].size();
  for (const auto& r : per_rank) {
    if (r.size() != n) return false;
  }
  for (size_t k = 0; k < n; ++k) {
    const SizeSample& first = per_rank[0][k];
    SizeStats s;
    s.op = first.op;
    s.size = first.size;
    s.bytes = first.bytes;
    s.count = first.count;
    s.ran = first.bytes > 0 && !first.iter_seconds.empty();
    std::vector<double> slowest(first.iter_seconds.size(), 0.0);
    double mean_max = 0, mean_min = 0;
    s.checked = true;
    for (int r = 0; r < ranks; ++r) {
      const SizeSample& x = per_rank[static_cast<size_t>(r)][k];
      if (x.op != s.op || x.size != s.size || x.bytes != s.bytes || x.iter_seconds.size() != slowest.size()) {
        return false;
      }
      for (size_t i = 0; i < slowest.size(); ++i) slowest[i] = std::max(slowest[i], x.iter_seconds[i]);
      const double mean =
          x.iter_seconds.empty() ? 0 : x.total_seconds / static_cast<double>(x.iter_seconds.size());
      s.rank_mean_s.push_back(mean);
      mean_max = r == 0 ? mean : std::max(mean_max, mean);
      mean_min = r == 0 ? mean : std::min(mean_min, mean);
      s.checked = s.checked && x.checked;
      s.wrong += x.wrong;
    }
    if (s.ran) {
      s.mean_s = mean_max;
      s.p50_s = percentile(slowest, 0.50);
      s.p99_s = percentile(slowest, 0.99);
      s.algbw = algbw(static_cast<double>(s.bytes), s.mean_s);
      s.busbw = busbw(s.op, ranks, static_cast<double>(s.bytes), s.mean_s);
      s.skew = mean_max > 0 ? (mean_max - mean_min) / mean_max : 0;
    } else {
      s.checked = false;
      s.rank_mean_s.clear();
    }
    out->push_back(std::move(s));
  }
  return true;
}

}  // namespace iofab
